package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/watch"
)

// The whole flow through the binary: `hangdog approve create` (its
// watcher runs as a task), a curl inside a real supervised task is
// refused, a person's POST decides, the owner's session gets one event
// through `hangdog events --consumer` and another session none.
func TestApproveFlow(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("no curl")
	}
	e := newEnv(t)
	// The page is served by the receiver approve create starts.
	base := "http://127.0.0.1:" + freePort(t)
	e.extra = append(e.extra, "HANGDOG_SESSION=s1", "HANGDOG_SERVE_ADDRESS="+strings.TrimPrefix(base, "http://"))
	t.Cleanup(func() { stopReceiver(e.home) })

	// Refused requests write nothing.
	if r := e.run("approve", "create", "--question", ""); r.code == 0 || !strings.Contains(r.stderr, "question (--question)") {
		t.Fatalf("an empty question: %+v", r)
	}
	if r := e.run("approve", "create", "--question", "ok?", "--details", "/no/such/file"); r.code == 0 || !strings.Contains(r.stderr, "--details /no/such/file") {
		t.Fatalf("a missing details file: %+v", r)
	}
	if ls := e.run("watch", "ls", "--all", "--json"); strings.TrimSpace(ls.stdout) != "[]" {
		t.Fatalf("refused creates left watchers: %s", ls.stdout)
	}

	// Both sessions' consumers start now, before anything happens.
	for _, s := range []string{"s1", "s2"} {
		if r := e.run("events", "--consumer", "c-"+s, "--session", s, "--json"); r.code != 0 || r.stdout != "" {
			t.Fatalf("register consumer %s: %+v", s, r)
		}
	}
	details := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(details, []byte("build 142: 412 tests passed\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := e.run("approve", "create", "--question", "Deploy build 142?", "--details", details, "--options", "Ship,Wait", "--expires", "2h", "--json")
	if r.code != 0 {
		t.Fatalf("approve create: %+v", r)
	}
	var c struct {
		ID        string   `json:"id"`
		URL       string   `json:"url"`
		ExpiresAt string   `json:"expires_at"`
		Reachable *bool    `json:"reachable_from_outside"`
		TaskID    string   `json:"task_id"`
		Options   []string `json:"options"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &c); err != nil {
		t.Fatalf("approve create --json: %v\n%s", err, r.stdout)
	}
	exp, err := time.Parse(time.RFC3339, c.ExpiresAt)
	if c.ID == "" || !strings.HasPrefix(c.URL, base+"/approve/") || c.Reachable == nil || *c.Reachable || c.TaskID == "" ||
		err != nil || time.Until(exp) < 119*time.Minute || strings.Join(c.Options, ",") != "Ship,Wait" {
		t.Fatalf("approve create said %s", r.stdout)
	}
	eventually(t, "the watcher's task to watch", 20*time.Second, func() bool {
		return strings.Contains(e.run("bg", "logs", c.TaskID).stdout, "watching")
	})

	page := get(t, c.URL)
	m := regexp.MustCompile(`name="nonce" value="([^"]+)"`).FindStringSubmatch(page)
	if m == nil || !strings.Contains(page, "build 142: 412 tests passed") {
		t.Fatalf("the page:\n%s", page)
	}
	nonce := m[1]

	// curl inside a supervised task: refused, GET and POST.
	post := curl + " -s -o /dev/null -w 'code=%{http_code}' -X POST --data-urlencode nonce=" + nonce + " --data decision=Ship " + c.URL
	if out := e.run("run", "--", "bash", "-c", post); !strings.Contains(out.stdout, "code=403") {
		t.Fatalf("POST from a hangdog task: %+v", out)
	}
	// With the task's environment wiped, its ancestry still gives it away.
	wiped := "exec env -i " + curl + " -s " + c.URL
	if out := e.run("run", "--", "bash", "-c", "exec env -i bash -c '"+wiped+"; true'"); !strings.Contains(out.stdout, "runs under hangdog-supervisor (pid") {
		t.Fatalf("GET from a hangdog task without its environment: %+v", out)
	}
	if out := e.run("run", "--", "bash", "-c", curl+" -s "+c.URL+"; true"); !strings.Contains(out.stdout, "Only a person can answer this") || !strings.Contains(out.stdout, "hangdog") {
		t.Fatalf("GET from a hangdog task: %+v", out)
	} else if m := regexp.MustCompile(`role="alert">([^<]*)`).FindStringSubmatch(out.stdout); m != nil {
		t.Logf("refused: %s", m[1])
	}
	if evs := e.run("events", "--consumer", "c-s1", "--session", "s1", "--json"); evs.stdout != "" {
		t.Fatalf("refused requests made events: %s", evs.stdout)
	}

	// A person decides.
	code, body := postForm(t, c.URL, url.Values{"nonce": {nonce}, "decision": {"Ship"}, "comment": {"go"}})
	if code != 200 || !strings.Contains(body, "Decision recorded") {
		t.Fatalf("the person's POST = %d\n%s", code, body)
	}
	// The decision is the one event; the watcher's task then ends, and a
	// clean end of a watcher's task is no event (its runner said why).
	var got []bgtasks.Event
	deadline := time.Now().Add(30 * time.Second)
	for len(got) == 0 && time.Now().Before(deadline) {
		evs := e.run("events", "--consumer", "c-s1", "--session", "s1", "--json", "--wait", "10s")
		for _, line := range strings.Split(strings.TrimSpace(evs.stdout), "\n") {
			var ev bgtasks.Event
			if line == "" {
				continue
			}
			if json.Unmarshal([]byte(line), &ev) != nil {
				t.Fatalf("events: %+v", evs)
			}
			got = append(got, ev)
		}
	}
	eventually(t, "the watcher's task to end", 20*time.Second, func() bool {
		return strings.Contains(e.run("bg", "ls", "--all").stdout, "exited")
	})
	evs := struct{ stdout string }{fmt.Sprint(got)}
	if len(got) != 1 || got[0].Decision != "Ship" || got[0].From != watch.FromApprovalLink || got[0].WatcherID != c.ID || got[0].Owner != "s1" ||
		!strings.HasSuffix(got[0].Comment, "\ngo") {
		t.Fatalf("the owner's events: %s", evs.stdout)
	}
	if again := e.run("events", "--consumer", "c-s1", "--session", "s1", "--json", "--wait", "2s"); again.stdout != "" {
		t.Fatalf("the event came twice: %s", again.stdout)
	}
	if other := e.run("events", "--consumer", "c-s2", "--session", "s2", "--json"); other.stdout != "" {
		t.Fatalf("another session got %s", other.stdout)
	}
	if code, body := postForm(t, c.URL, url.Values{"nonce": {nonce}, "decision": {"Wait"}}); code != 409 || !strings.Contains(body, `<p class="decision">Ship</p>`) {
		t.Fatalf("a second POST = %d\n%s", code, body)
	}
	if ls := e.run("watch", "ls"); !strings.Contains(ls.stdout, "decided: Ship") {
		t.Fatalf("watch ls:\n%s", ls.stdout)
	}
	if r := e.run("watch", "resume", c.ID); r.code == 0 {
		t.Fatalf("a decided approval resumed: %+v", r)
	}
}

func get(t *testing.T, u string) string {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s = %d\n%s", u, resp.StatusCode, b)
	}
	return string(b)
}

func postForm(t *testing.T, u string, form url.Values) (int, string) {
	t.Helper()
	resp, err := http.PostForm(u, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
