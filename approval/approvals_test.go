package approval

import (
	"fmt"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hangdog/hangdog/watch"
)

// unsent is Approvals whose decisions are recorded but not passed on, as
// the fleet receiver's are while its servers do not take the publish.
type unsent struct{ expires time.Time }

func (u unsent) ApprovalByToken(string, time.Time) (*watch.ApprovalView, error) {
	return &watch.ApprovalView{ID: "sandbox/w1", Approval: watch.Approval{Question: "Ship?", Options: []string{"Approve", "Reject"}}, ExpiresAt: u.expires}, nil
}

func (u unsent) Decide(_, choice, comment string, now time.Time) (*watch.Decision, error) {
	return &watch.Decision{Choice: choice, Comment: comment, At: now}, fmt.Errorf("publish: %w", watch.ErrDecisionNotSent)
}

// A decision recorded but not yet passed on is not "nothing was recorded":
// the page says it stands and asks for a reload to send it (503).
func TestPageSaysADecisionIsRecordedButNotSent(t *testing.T) {
	srv := httptest.NewServer(HandlerFor(unsent{expires: time.Now().Add(time.Hour)}, FileKey(filepath.Join(t.TempDir(), keyFile))))
	t.Cleanup(srv.Close)
	link := srv.URL + "/approve/" + strings.Repeat("a", 43)
	_, _, page := do(t, "GET", link, nil)
	code, _, body := do(t, "POST", link, url.Values{"nonce": {nonceOf(t, page)}, "decision": {"Approve"}})
	if code != 503 || !strings.Contains(body, "Recorded, not yet sent") || !strings.Contains(body, "Reload this page") || !strings.Contains(body, "Approve") || strings.Contains(body, "nothing was recorded") {
		t.Fatalf("%d\n%s", code, body)
	}
}
