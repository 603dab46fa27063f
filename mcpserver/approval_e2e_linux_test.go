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
	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/watch"
	"github.com/hangdog/hangdog/watchctl"
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
	env := []string{watchctl.ReceiverURLEnv + "=" + srv.URL, "HANGDOG_SERVE_ADDRESS=127.0.0.1:0"}
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

// A session owns what it starts: an approval link made through MCP ends
// with the session (tasks.onSessionEnd: kill, the default) — its watcher
// is paused, saying why, and its runner's task ends — instead of serving a
// page nobody will hear the answer of.
func TestApprovalLinkEndsWithItsSession(t *testing.T) {
	w := newWorld(t)
	env := []string{watchctl.ReceiverURLEnv + "=http://127.0.0.1:9", "HANGDOG_SERVE_ADDRESS=127.0.0.1:0"}
	a := w.connectWith(env)
	w.stopReceiverAtEnd()
	if r := call(t, a, "approve_create", map[string]any{"question": "Ship it?"}); r.isError || !strings.Contains(r.text, "its watcher is running") {
		t.Fatalf("approve_create: %+v", r)
	}
	reg := w.registry()
	store, err := watch.OpenStore(reg)
	if err != nil {
		t.Fatal(err)
	}
	watcher := func() *watch.Watcher {
		t.Helper()
		ws, err := store.List(bgtasks.Scope{All: true})
		if err != nil || len(ws) != 1 {
			t.Fatalf("watchers: %v %v", ws, err)
		}
		return ws[0]
	}
	taskID := watcher().State.TaskID
	if taskID == "" {
		t.Fatalf("the approval's runner has no task: %+v", watcher().State)
	}
	waitFor(t, "the runner to start", func() bool {
		out, _ := w.command("bg", "logs", taskID).Output()
		return strings.Contains(string(out), "watching")
	})
	if err := a.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	waitFor(t, "the runner's task to end with the session", func() bool {
		task, err := reg.Get(taskID)
		if err != nil {
			t.Fatal(err)
		}
		task, _ = reg.Reconcile(task)
		return task.State().Ended()
	})
	if st := watcher().State; !st.Paused || !strings.Contains(st.Reason, "session") {
		t.Fatalf("the approval after its session ended: %+v; want paused, saying its session ended", st)
	}
}
