package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A trigger link through the CLI as a person drives it: create starts the
// watcher's task and the receiver, prints the link; the example curl of
// each scheme, run by bash with the secret in the environment, is
// accepted; each delivery is one event for the owner; `watch secret`
// shows the secret to the person and refuses inside a task; the secret is
// in no file under the home but its own; rm closes the link and the
// receiver leaves.
func TestWebhookCLIEndToEnd(t *testing.T) {
	for _, tool := range []string{"curl", "openssl", "od", "base64"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed; the example curl needs it", tool)
		}
	}
	e := newEnv(t)
	const stdSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	const plainSecret = "a-plain-secret-4f1c9e"
	e.extra = append(e.extra, "HANGDOG_SESSION=s1", "HANGDOG_SERVE_ADDRESS=127.0.0.1:"+freePort(t), "STD_SECRET="+stdSecret, "PLAIN_SECRET="+plainSecret)
	t.Cleanup(func() { stopReceiver(e.home) })
	type link struct {
		ID          string `json:"id"`
		TaskID      string `json:"task_id"`
		URL         string `json:"url"`
		Secret      string `json:"secret"`
		SecretEnv   string `json:"secret_env"`
		ExampleCurl string `json:"example_curl"`
		Reachable   *bool  `json:"reachable_from_outside"`
		MaxHits     int    `json:"max_hits"`
		Rate        string `json:"rate"`
		ExpiresAt   string `json:"expires_at"`
	}
	create := func(args ...string) link {
		t.Helper()
		r := e.run(append([]string{"watch", "create", "--kind", "webhook", "--json"}, args...)...)
		if r.code != 0 {
			t.Fatalf("create %v: %d %s %s", args, r.code, r.stdout, r.stderr)
		}
		if strings.Contains(r.stdout+r.stderr, stdSecret) || strings.Contains(r.stdout+r.stderr, plainSecret) {
			t.Fatalf("create printed the secret: %s", r.stdout)
		}
		var l link
		if err := json.Unmarshal([]byte(r.stdout), &l); err != nil {
			t.Fatalf("create --json: %v: %s", err, r.stdout)
		}
		if !strings.HasPrefix(l.URL, "http://127.0.0.1:") || !strings.Contains(l.URL, "/hook/") || l.Reachable == nil || *l.Reachable || l.ExpiresAt == "" || l.TaskID == "" {
			t.Fatalf("create said %+v", l)
		}
		return l
	}
	curl := func(l link, secret string) string {
		t.Helper()
		cmd := exec.Command("bash", "-c", l.ExampleCurl)
		cmd.Env = append(os.Environ(), "WEBHOOK_SECRET="+secret)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("example curl: %v: %s %s\n%s", err, out.String(), errb.String(), l.ExampleCurl)
		}
		return out.String()
	}

	std := create("--signature", "standard_webhooks", "--secret-env", "STD_SECRET", "--check", "status", "--path", "status", "--value", "done", "--max-hits", "5", "--rate", "30/min")
	if !strings.Contains(std.Secret, "hidden") || std.SecretEnv != "WEBHOOK_SECRET" || std.MaxHits != 5 || std.Rate != "30/min" {
		t.Fatalf("link %+v", std)
	}
	if got := curl(std, stdSecret); !strings.Contains(got, `"accepted":true`) {
		t.Fatalf("the example curl was answered %s", got)
	}
	if got := curl(std, "whsec_QUJDREVGR0hJSktMTU5PUA=="); !strings.Contains(got, "does not match") {
		t.Errorf("a wrong secret was answered %s", got)
	}
	gh := create("--signature", "github", "--secret-env", "PLAIN_SECRET")
	hm := create("--signature", "hmac_sha256", "--secret-env", "PLAIN_SECRET")
	un := create()
	for _, l := range []link{gh, hm, un} {
		if got := curl(l, plainSecret); !strings.Contains(got, `"accepted":true`) {
			t.Errorf("%s: the example curl was answered %s", l.ID, got)
		}
	}
	eventually(t, "an event per delivery", 20*time.Second, func() bool {
		return strings.Count(e.run("events", "--json").stdout, `"watch_fired"`) == 4
	})
	evs := e.run("events", "--json").stdout
	if !strings.Contains(evs, `"dedupe_key":"w1:hook:0000000001-`) || !strings.Contains(evs, "status done") || !strings.Contains(evs, `"owner":"s1"`) {
		t.Errorf("events:\n%s", evs)
	}
	if other := e.runEnv([]string{"HANGDOG_SESSION=s2"}, "events", "--json").stdout; strings.Contains(other, "watch_fired") {
		t.Errorf("another session sees the fires:\n%s", other)
	}

	// The secret, to the person; never inside a task.
	r := e.run("watch", "secret", "w1", "--json")
	if r.code != 0 || !strings.Contains(r.stdout, stdSecret) || !strings.Contains(r.stdout, std.URL) {
		t.Fatalf("watch secret: %+v", r)
	}
	if r := e.runEnv([]string{"HANGDOG_TASK_ID=t1"}, "watch", "secret", "w1"); r.code == 0 || strings.Contains(r.stdout, stdSecret) || !strings.Contains(r.stderr, "inside a hangdog task") {
		t.Errorf("watch secret inside a task: %+v", r)
	}
	if r := e.run("watch", "show", "w1"); !strings.Contains(r.stdout, "1 of 5 deliveries") || strings.Contains(r.stdout, stdSecret) {
		t.Errorf("watch show: %s", r.stdout)
	}
	ls := e.run("watch", "ls", "--json")
	if strings.Contains(ls.stdout, stdSecret) || strings.Contains(ls.stdout, plainSecret) || strings.Contains(ls.stdout, std.URL) {
		t.Errorf("watch ls shows a secret or a link's token:\n%s", ls.stdout)
	}
	// Everything under the home: logs (the receiver's, the tasks'),
	// events, specs, states. The secrets are in their own files only.
	for secret, want := range map[string][]string{stdSecret: {"watchers/w1/link.secret"}, plainSecret: {"watchers/w2/link.secret", "watchers/w3/link.secret"}} {
		got := filesHolding(t, e.home, secret)
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("files under the home holding a secret: %v, want only %v", got, want)
		}
	}
	for _, f := range filesHolding(t, e.home, std.URL[strings.LastIndex(std.URL, "/")+1:]) {
		if f != "watchers/w1/link.token" {
			t.Errorf("%s holds w1's token", f)
		}
	}

	// rm and pause revoke: the link answers 404, and with no link left the
	// receiver leaves by itself. resume brings it back, on the same
	// address, so the link's URL still works.
	addr := readReceiver(t, e.home)
	e.run("watch", "rm", "w1")
	for _, id := range []string{"w2", "w3", "w4"} {
		e.run("watch", "pause", id)
	}
	out, _ := exec.Command("curl", "-sS", "-X", "POST", "--data", "{}", std.URL).Output()
	if !strings.Contains(string(out), "no such link") {
		t.Errorf("a deleted link answered %s", out)
	}
	if out, _ := exec.Command("curl", "-sS", "-X", "POST", "--data", "{}", un.URL).Output(); !strings.Contains(string(out), "no such link") {
		t.Errorf("a paused link answered %s", out)
	}
	eventually(t, "the receiver to leave", 40*time.Second, func() bool { return !alive(addr.PID) })
	if r := e.run("watch", "resume", "w4"); r.code != 0 {
		t.Fatalf("resume: %+v", r)
	}
	if again := readReceiver(t, e.home); again.PID == addr.PID || again.URL != addr.URL {
		t.Errorf("after resume the receiver is %+v, want a new one at %s", again, addr.URL)
	}
	if got := curl(un, ""); !strings.Contains(got, `"accepted":true`) {
		t.Errorf("the resumed link answered %s", got)
	}
	e.run("watch", "rm", "w4")
}

type receiverAddress struct {
	PID int    `json:"pid"`
	URL string `json:"url"`
}

func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

func readReceiver(t *testing.T, home string) receiverAddress {
	t.Helper()
	var a receiverAddress
	b, err := os.ReadFile(filepath.Join(home, "serve", "address.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &a); err != nil {
		t.Fatal(err)
	}
	return a
}

func stopReceiver(home string) {
	b, err := os.ReadFile(filepath.Join(home, "serve", "address.json"))
	if err != nil {
		return
	}
	var a receiverAddress
	if json.Unmarshal(b, &a) == nil && a.PID > 0 {
		_ = syscall.Kill(a.PID, syscall.SIGTERM)
	}
}

// filesHolding lists the files under root (relative) that contain s.
func filesHolding(t *testing.T, root, s string) []string {
	t.Helper()
	var out []string
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		b, _ := os.ReadFile(p)
		if bytes.Contains(b, []byte(s)) {
			rel, _ := filepath.Rel(root, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

// Behind a tunnel or proxy ($HANGDOG_RECEIVER_URL), a trigger link carries
// that base and says it is reachable from outside; the receiver still runs
// here, and a delivery forwarded to it (as the tunnel would) is accepted
// and fires. A malformed value is refused before any watcher is created.
func TestWebhookLinkBehindAProxy(t *testing.T) {
	e := newEnv(t)
	e.extra = append(e.extra, "HANGDOG_SESSION=s1", "HANGDOG_SERVE_ADDRESS=127.0.0.1:"+freePort(t))
	t.Cleanup(func() { stopReceiver(e.home) })

	bad := e.runEnv([]string{"HANGDOG_RECEIVER_URL=hooks.example.net/x"}, "watch", "create", "--kind", "webhook")
	if bad.code == 0 || !strings.Contains(bad.stderr, "$HANGDOG_RECEIVER_URL is \"hooks.example.net/x\"") || !strings.Contains(bad.stderr, "http(s)://HOST[:PORT]") {
		t.Fatalf("a malformed HANGDOG_RECEIVER_URL: %+v", bad)
	}
	if ls := e.run("watch", "ls", "--json"); strings.Contains(ls.stdout, `"id"`) {
		t.Fatalf("the refused create left a watcher:\n%s", ls.stdout)
	}

	r := e.runEnv([]string{"HANGDOG_RECEIVER_URL=https://hooks.example.net/"}, "watch", "create", "--kind", "webhook", "--json")
	var l struct {
		ID        string `json:"id"`
		URL       string `json:"url"`
		Reachable bool   `json:"reachable_from_outside"`
		Curl      string `json:"example_curl"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &l); r.code != 0 || err != nil {
		t.Fatalf("create: %d %v %s %s", r.code, err, r.stdout, r.stderr)
	}
	token, ok := strings.CutPrefix(l.URL, "https://hooks.example.net/hook/")
	if !ok || len(token) < 40 || !l.Reachable || !strings.Contains(l.Curl, l.URL) {
		t.Fatalf("create said %+v; want the proxy's base, reachable from outside", l)
	}
	local := readReceiver(t, e.home).URL + "/hook/" + token
	resp, err := http.Post(local, "application/json", strings.NewReader(`{"status":"done"}`))
	if err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted || !strings.Contains(string(out), `"accepted":true`) {
		t.Fatalf("a delivery forwarded to the receiver here: %d %s", resp.StatusCode, out)
	}
	eventually(t, "the delivery's event", 20*time.Second, func() bool {
		return strings.Contains(e.run("events", "--json").stdout, `"watch_fired"`)
	})
	e.run("watch", "rm", l.ID)
}
