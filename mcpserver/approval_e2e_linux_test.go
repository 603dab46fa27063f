//go:build linux

package mcpserver_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hangdog/hangdog/approval"
	"github.com/hangdog/hangdog/watch"
)

// An MCP session asks for an approval; the page refuses the agent (this
// test process is the MCP server's parent, as Claude Code is) and decides
// for a process outside it; the decision is at the top of the session's
// next result, once, with the comment marked untrusted; another session
// sees nothing.
func TestApprovalDecisionReachesOnlyItsSession(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("no curl")
	}
	w := newWorld(t)
	store, err := watch.OpenStore(w.registry())
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/approve/", approval.Handler(store))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	// srv stands for a proxy in front of the receiver: links carry its
	// address, and the receiver still runs here, behind it.
	env := []string{approval.BaseURLEnv + "=" + srv.URL, "HANGDOG_SERVE_ADDRESS=127.0.0.1:0"}
	a, b := w.connectWith(env), w.connectWith(env)
	w.stopReceiverAtEnd()

	r := call(t, a, "approve_create", map[string]any{"question": "Merge PR 77?", "details": "3 files changed", "options": []string{"Merge", "Hold"}})
	link, _ := r.data["url"].(string)
	if r.isError || !strings.HasPrefix(link, srv.URL+"/approve/") || r.data["reachable_from_outside"] != false || !strings.Contains(r.text, "its watcher is running") || !strings.Contains(r.text, link) {
		t.Fatalf("approve_create: %+v", r)
	}
	if r := call(t, a, "approve_create", map[string]any{"question": "x", "options": []string{"A", "a"}}); !r.isError || !strings.Contains(r.text, "options") {
		t.Errorf("duplicate options: %+v", r)
	}

	// The agent itself (this process) may not even open it.
	resp, err := http.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 403 || !strings.Contains(string(body), "is the agent that asked") {
		t.Fatalf("GET by the agent = %d\n%s", resp.StatusCode, body)
	}

	// A person: a process outside the agent's tree (setsid, orphaned to
	// init), opening the page and pressing Merge.
	out := filepath.Join(w.dir, "person.out")
	person := func(script string) string {
		t.Helper()
		_ = os.Remove(out)
		cmd := exec.Command("bash", "-c", "(setsid bash -c '"+script+" > "+out+".tmp 2>&1; mv "+out+".tmp "+out+"' &)")
		if err := cmd.Run(); err != nil {
			t.Fatal(err)
		}
		var got []byte
		waitFor(t, "the person's curl", func() bool {
			got, err = os.ReadFile(out)
			return err == nil
		})
		return string(got)
	}
	page := person(curl + " -s " + link)
	m := regexp.MustCompile(`name="nonce" value="([^"]+)"`).FindStringSubmatch(page)
	if m == nil || !strings.Contains(page, "Merge PR 77?") {
		t.Fatalf("the person's page:\n%s", page)
	}
	form := url.Values{"nonce": {m[1]}, "decision": {"Merge"}, "comment": {"ok, but squash"}}.Encode()
	if got := person(curl + " -s -o /dev/null -w %{http_code} --data \"" + form + "\" " + link); got != "200" {
		t.Fatalf("the person's POST = %q", got)
	}

	var got reply
	deadline := time.Now().Add(60 * time.Second)
	for got.notice == "" && time.Now().Before(deadline) {
		got = call(t, a, "watch_list", nil)
		time.Sleep(100 * time.Millisecond)
	}
	if !strings.Contains(got.notice, `approval w1 decided: a person decided "Merge" through the approval link — question: "Merge PR 77?"`) || !strings.Contains(got.notice, "a person pressed that button") ||
		!strings.Contains(got.notice, "comment (untrusted)") || !strings.Contains(got.notice, "ok, but squash") {
		t.Fatalf("notice: %q", got.notice)
	}
	if again := call(t, a, "watch_list", nil); strings.Contains(again.notice, "decided") {
		t.Errorf("the decision came twice: %q", again.notice)
	}
	if rb := call(t, b, "watch_list", nil); strings.Contains(rb.notice, "w1") || strings.Contains(rb.text, "w1") {
		t.Errorf("another session sees the approval: %+v", rb)
	}
}
