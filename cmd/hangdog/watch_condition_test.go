package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// A watcher's condition through the real CLI: `watch create --condition`
// in an environment whose decision model is an OpenAI-compatible server
// (the fake one here, the one true boundary); the watcher's own task
// resolves that model from the environment it was created in, asks it when
// the file changes, and the event says the condition holds. A watcher
// created with no model configured fires at once, saying it did not check
// and how to configure one.
func TestWatchCLIConditionAskedOfTheDecisionModel(t *testing.T) {
	var mu sync.Mutex
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		asked = append(asked, string(body))
		mu.Unlock()
		content := `{"holds": true, "why": "the status is failed and the log names the linker"}`
		b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": content}}}})
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	}))
	defer srv.Close()
	requests := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), asked...)
	}

	e := newEnv(t)
	e.extra = []string{"HANGDOG_SESSION=s1", "TYPESAFE_API_KEY=", "OPENAI_API_KEY="}
	withModel := []string{"HANGDOG_OPENAI_BASE_URL=" + srv.URL + "/v1", "HANGDOG_OPENAI_MODEL=watch-judge"}
	noModel := []string{"HANGDOG_OPENAI_BASE_URL="}
	dir := t.TempDir()
	judged, unjudged := filepath.Join(dir, "judged.log"), filepath.Join(dir, "unjudged.log")
	for _, p := range []string{judged, unjudged} {
		if err := os.WriteFile(p, []byte("build: running\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	create := func(env []string, path string) (id, task, stderr string) {
		t.Helper()
		r := e.runEnv(env, "watch", "create", "--kind", "file", path, "--interval", "1s",
			"--condition", "the build failed for a reason other than a flaky test", "--json")
		var c struct {
			ID     string
			TaskID string `json:"task_id"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &c); r.code != 0 || err != nil {
			t.Fatalf("create: %d %v %s %s", r.code, err, r.stdout, r.stderr)
		}
		return c.ID, c.TaskID, r.stderr
	}
	w1, t1, warn1 := create(withModel, judged)
	w2, t2, warn2 := create(noModel, unjudged)
	if warn1 != "" || !strings.Contains(warn2, "warning: conditions: no decision model is configured") {
		t.Errorf("create's warnings: with a model %q, without %q; want only the second to warn", warn1, warn2)
	}
	defer e.run("watch", "rm", w1)
	defer e.run("watch", "rm", w2)
	for _, task := range []string{t1, t2} {
		eventually(t, "the runner of "+task+" to start", 20*time.Second, func() bool {
			return strings.Contains(e.run("bg", "logs", task).stdout, "watching")
		})
	}
	if logs := e.run("bg", "logs", t1).stdout; !strings.Contains(logs, "conditions are asked of openai at "+srv.URL) {
		t.Errorf("the runner does not say which model it asks:\n%s", logs)
	}
	if len(requests()) != 0 {
		t.Fatalf("the model was asked before anything changed: %d requests", len(requests()))
	}
	for _, p := range []string{judged, unjudged} {
		if err := os.WriteFile(p, []byte("build: failed\nld: undefined reference to main\npassword=s3cr3t-build-pw\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "both fires", 30*time.Second, func() bool {
		return strings.Count(e.run("events", "--json").stdout, `"watch_fired"`) >= 2
	})
	byWatcher := map[string]string{} // the reasons of each watcher's fires, a line each
	for _, line := range strings.Split(strings.TrimSpace(e.run("events", "--json").stdout), "\n") {
		var ev struct {
			Kind      string `json:"kind"`
			WatcherID string `json:"watcher_id"`
			Reason    string `json:"reason"`
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("events --json line %q: %v", line, err)
		}
		if ev.Kind == "watch_fired" {
			byWatcher[ev.WatcherID] += ev.Reason + "\n"
		}
	}
	if r := byWatcher[w1]; strings.Count(r, "\n") != 1 || !strings.Contains(r, "condition holds: the build failed for a reason other than a flaky test") {
		t.Errorf("%s's fires: %q; want one saying the condition holds", w1, r)
	}
	if r := byWatcher[w2]; strings.Count(r, "\n") != 1 || !strings.Contains(r, "condition not checked: no decision model is configured (set HANGDOG_OPENAI_BASE_URL") {
		t.Errorf("%s's fires: %q; want one marked not checked, saying how to configure a model", w2, r)
	}
	got := requests()
	if len(got) != 1 {
		t.Fatalf("%d requests to the model, want 1 (only the watcher created with it)", len(got))
	}
	if !strings.Contains(got[0], "ld: undefined reference to main") || !strings.Contains(got[0], "untrusted") ||
		strings.Contains(got[0], "s3cr3t-build-pw") || strings.Contains(got[0], `"tools"`) {
		t.Errorf("the request: want the new content, marked untrusted, no secret, no tools:\n%.600s", got[0])
	}
}
