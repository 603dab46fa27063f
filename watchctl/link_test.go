package watchctl

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/watch"
)

func openTest(t *testing.T) *Service {
	t.Helper()
	reg, err := bgtasks.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	svc, err := Open(reg, Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// Both kinds of link fail alike on the same error, before anything is
// created: a malformed $HANGDOG_RECEIVER_URL.
func TestBothKindsOfLinkRefuseABadBaseAlike(t *testing.T) {
	svc := openTest(t)
	t.Setenv(ReceiverURLEnv, "ftp://example.net/hooks")
	me := Caller{Owner: "s1"}
	_, werr := svc.Create(t.Context(), me, &watch.Request{Kind: "Webhook"})
	_, aerr := svc.CreateApproval(t.Context(), me, &watch.ApprovalRequest{Question: "Ship?"})
	if werr == nil || aerr == nil || werr.Error() != aerr.Error() || !strings.Contains(werr.Error(), ReceiverURLEnv) {
		t.Fatalf("trigger link: %v\napproval link: %v\nwant one error naming $%s", werr, aerr, ReceiverURLEnv)
	}
	if ws, err := svc.List(Caller{Person: true}, true); err != nil || len(ws) != 0 {
		t.Fatalf("watchers after the refusals: %v %v", ws, err)
	}
}

// One description for both kinds: the common fields, and the kind's own
// inlined; a trigger link's never holds its secret.
func TestOneLinkDescriptionForBothKinds(t *testing.T) {
	exp := time.Date(2026, 12, 24, 18, 0, 0, 0, time.UTC)
	trigger := &watch.Watcher{Spec: &watch.Spec{ID: "w1", Kind: watch.KindWebhook, ExpiresAt: &exp,
		Link: &watch.LinkSpec{Signature: "github", MaxHits: 5, RatePerMin: 60}}}
	approval := &watch.Watcher{Spec: &watch.Spec{ID: "w2", Kind: watch.KindApproval, ExpiresAt: &exp, Link: &watch.LinkSpec{},
		Approval: &watch.Approval{Question: "Ship?", Options: []string{"Yes", "No"}}}}
	for _, c := range []struct {
		w          *watch.Watcher
		base, want string
		fields     []string
		reachable  bool
	}{
		{trigger, "https://hooks.example.net/", "https://hooks.example.net/hook/TOKEN",
			[]string{`"kind":"webhook"`, `"max_hits":5`, `"rate":"60/min"`, `"unverified_rate":"240/min"`, `"secret_env":"WEBHOOK_SECRET"`, `"example_curl"`}, true},
		{approval, "http://127.0.0.1:17465", "http://127.0.0.1:17465/approve/TOKEN",
			[]string{`"kind":"approval"`, `"question":"Ship?"`, `"options":["Yes","No"]`}, false},
	} {
		l := describe(c.base, c.w, "TOKEN", 2)
		b, _ := json.Marshal(l)
		if l.URL != c.want || !l.ExpiresAt.Equal(exp) || l.ReachableFromOutside != c.reachable || l.Reachability == "" {
			t.Errorf("%s: %s", c.w.Spec.Kind, b)
		}
		for _, f := range c.fields {
			if !strings.Contains(string(b), f) {
				t.Errorf("%s: %s lacks %s", c.w.Spec.Kind, b, f)
			}
		}
		if c.w.Spec.Kind == watch.KindApproval && strings.Contains(string(b), "max_hits") {
			t.Errorf("an approval link carries a trigger link's fields: %s", b)
		}
	}
	if l := describe("http://h.example", trigger, "TOKEN", 0); !strings.HasPrefix(l.Secret, "hidden") {
		t.Errorf("a signed link's secret reads %q, want it hidden", l.Secret)
	}
}
