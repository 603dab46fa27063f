//go:build linux

package mcpserver_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// An MCP session creates a file watcher; the file changes; the fire is at
// the top of the session's next tool result, once, and another session
// neither sees it in its results nor can touch the watcher.
func TestWatcherFireReachesOnlyItsSession(t *testing.T) {
	w := newWorld(t)
	a, b := w.connect(), w.connect()
	path := filepath.Join(w.dir, "status.txt")
	if err := os.WriteFile(path, []byte("building"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := call(t, a, "watch_create", map[string]any{"kind": "file", "target": path, "check": "contains", "value": "done", "interval_seconds": 1})
	if r.isError || !strings.Contains(r.text, "Watcher w1") || !strings.Contains(r.text, "currently building") || !strings.Contains(r.text, "running as task") {
		t.Fatalf("watch_create: %+v", r)
	}
	if r := call(t, a, "watch_create", map[string]any{"kind": "file", "target": path, "max_fires": 0}); !r.isError || !strings.Contains(r.text, "max_fires") {
		t.Errorf("max_fires 0 for a session's watcher: %+v", r)
	}
	waitFor(t, "the watcher's task to log its start", func() bool {
		out, _ := w.command("bg", "logs", taskIDIn(t, r.text)).Output()
		return strings.Contains(string(out), "watching")
	})
	if err := os.WriteFile(path, []byte("done: all green"), 0o600); err != nil {
		t.Fatal(err)
	}
	var got reply
	waitFor(t, "the fire in a result", func() bool {
		got = call(t, a, "watch_list", nil)
		return got.notice != ""
	})
	if !strings.Contains(got.notice, "watcher w1 fired") || !strings.Contains(got.notice, "untrusted") || !strings.Contains(got.notice, "done: all green") {
		t.Fatalf("notice: %q", got.notice)
	}
	if again := call(t, a, "watch_list", nil); again.notice != "" || !strings.Contains(again.text, "fires 1 of 20") {
		t.Errorf("second result: %+v; want no repeat and the fire counted", again)
	}
	rb := call(t, b, "watch_list", nil)
	if strings.Contains(rb.notice, "w1") || strings.Contains(rb.text, "w1") {
		t.Errorf("another session sees the watcher: %+v", rb)
	}
	for _, tool := range []string{"watch_pause", "watch_resume", "watch_delete"} {
		if r := call(t, b, tool, map[string]any{"id": "w1"}); !r.isError || !strings.Contains(r.text, "no such watcher") {
			t.Errorf("%s by another session: %+v, want not found", tool, r)
		}
	}
	if r := call(t, a, "watch_delete", map[string]any{"id": "w1"}); r.isError {
		t.Fatalf("watch_delete: %+v", r)
	}
	task := taskIDIn(t, r.text)
	waitFor(t, "the watcher's task to end", func() bool {
		out, _ := w.command("bg", "ls").Output()
		if strings.Contains(string(out), "running") {
			logs, _ := w.command("bg", "logs", task).Output()
			t.Logf("bg ls:\n%s\nlogs:\n%s", out, logs)
			return false
		}
		return true
	})
}

// stopReceiverAtEnd stops the receiver a link of the test's home started.
func (w *world) stopReceiverAtEnd() {
	w.t.Cleanup(func() {
		if b, err := os.ReadFile(filepath.Join(w.home, "serve", "address.json")); err == nil {
			var addr struct{ PID int }
			if json.Unmarshal(b, &addr) == nil && addr.PID > 0 {
				syscall.Kill(addr.PID, syscall.SIGTERM)
			}
		}
	})
}

// watch_create with kind webhook: the result has the link (URL, limits,
// example curl, reachability) and says the signing secret is hidden; the
// secret appears in no result; a signed delivery reaches the session's
// next result, once.
func TestWebhookThroughMCPHidesTheSecret(t *testing.T) {
	w := newWorld(t)
	const secret = "mcp-hook-secret-7d2e91"
	a := w.connectWith([]string{"HOOK_SECRET=" + secret, "HANGDOG_SERVE_ADDRESS=127.0.0.1:0"})
	w.stopReceiverAtEnd()
	r := call(t, a, "watch_create", map[string]any{"kind": "webhook", "signature": "github", "secret_env": "HOOK_SECRET", "max_hits": 3})
	if r.isError || !strings.Contains(r.text, "Watcher w1") || !strings.Contains(r.text, `"url": "http://127.0.0.1:`) || !strings.Contains(r.text, "hidden") ||
		!strings.Contains(r.text, `"reachable_from_outside": false`) || !strings.Contains(r.text, "example_curl") {
		t.Fatalf("watch_create: %+v", r)
	}
	if strings.Contains(r.text, secret) {
		t.Fatalf("the result holds the secret: %s", r.text)
	}
	m := regexp.MustCompile(`"url": "([^"]+)"`).FindStringSubmatch(r.text)
	body := `{"workflow_run":{"conclusion":"failure"}}`
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(body))
	req, _ := http.NewRequest(http.MethodPost, m[1], strings.NewReader(body))
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("delivery answered %d", resp.StatusCode)
	}
	var got reply
	waitFor(t, "the delivery in a result", func() bool {
		got = call(t, a, "watch_list", nil)
		return got.notice != ""
	})
	if !strings.Contains(got.notice, "watcher w1 fired") || !strings.Contains(got.notice, "failure") || !strings.Contains(got.notice, "untrusted") {
		t.Errorf("notice: %q", got.notice)
	}
	for _, s := range []string{got.notice, got.text} {
		if strings.Contains(s, secret) {
			t.Errorf("a result holds the secret: %s", s)
		}
	}
	if r := call(t, a, "watch_create", map[string]any{"kind": "webhook", "signature": "github", "secret_env": "NO_SUCH_VAR_HERE"}); !r.isError || !strings.Contains(r.text, "secret_env") {
		t.Errorf("an unset secret_env: %+v", r)
	}
	// Under the home (events, logs, specs, the receiver's log) the secret is
	// in its own file only.
	var holding []string
	_ = filepath.WalkDir(w.home, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), secret) {
				rel, _ := filepath.Rel(w.home, p)
				holding = append(holding, rel)
			}
		}
		return nil
	})
	if len(holding) != 1 || holding[0] != "watchers/w1/link.secret" {
		t.Errorf("files holding the secret: %v, want only watchers/w1/link.secret", holding)
	}
	call(t, a, "watch_delete", map[string]any{"id": "w1"})
}

// watch_create on a file in a directory every user can write says so in
// its result, as the CLI does.
func TestWatchCreateWarnsOfSharedDirectory(t *testing.T) {
	w := newWorld(t)
	a := w.connect()
	shared := filepath.Join(w.dir, "shared")
	if err := os.Mkdir(shared, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(shared, 0o1777); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(shared, "status.txt")
	if err := os.WriteFile(path, []byte("building"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := call(t, a, "watch_create", map[string]any{"kind": "file", "target": path})
	if r.isError || !strings.Contains(r.text, "Warning: every user can write "+shared) {
		t.Errorf("watch_create in a 1777 directory: %+v; want a warning that names it", r)
	}
	call(t, a, "watch_delete", map[string]any{"id": "w1"})
}
