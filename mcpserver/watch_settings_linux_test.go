//go:build linux

package mcpserver_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The MCP watch tools read the watchers.* settings: with
// watchers.maxActivePerOwner 1 a session's second watch_create is refused
// naming the setting, and watchers.maxFires is the budget of a watcher
// created without max_fires.
func TestWatchToolsReadTheWatchersSettings(t *testing.T) {
	w := newWorld(t)
	a := w.connectWith([]string{"HANGDOG_WATCHERS_MAXACTIVEPEROWNER=1", "HANGDOG_WATCHERS_MAXFIRES=4"})
	path := filepath.Join(w.dir, "f.txt")
	if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := call(t, a, "watch_create", map[string]any{"kind": "file", "target": path, "interval_seconds": 60})
	if r.isError {
		t.Fatalf("first watch_create: %+v", r)
	}
	defer call(t, a, "watch_delete", map[string]any{"id": "w1"})
	if l := call(t, a, "watch_list", nil); !strings.Contains(l.text, "fires 0 of 4") {
		t.Errorf("watch_list: %+v, want the budget watchers.maxFires gave", l)
	}
	second := call(t, a, "watch_create", map[string]any{"kind": "file", "target": path, "interval_seconds": 60})
	if !second.isError || !strings.Contains(second.text, "at most 1 active watchers per owner (watchers.maxActivePerOwner)") {
		t.Fatalf("second watch_create under maxActivePerOwner 1: %+v, want it refused naming the setting", second)
	}
}

// watch_create with a condition says so when no decision model will judge
// it (the runner resolves the model from the server's environment), and
// says nothing when one is configured.
func TestWatchCreateWarnsWhenNoModelWillJudgeTheCondition(t *testing.T) {
	for _, c := range []struct {
		env  []string
		warn bool
	}{
		{[]string{"HANGDOG_OPENAI_BASE_URL=", "HANGDOG_OPENAI_MODEL=", "TYPESAFE_API_KEY="}, true},
		{[]string{"HANGDOG_OPENAI_BASE_URL=http://127.0.0.1:9/v1", "HANGDOG_OPENAI_MODEL=m"}, false},
	} {
		w := newWorld(t)
		a := w.connectWith(c.env)
		path := filepath.Join(w.dir, "f.txt")
		if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		r := call(t, a, "watch_create", map[string]any{"kind": "file", "target": path, "interval_seconds": 60, "condition": "the build passed"})
		if r.isError {
			t.Fatalf("watch_create: %+v", r)
		}
		call(t, a, "watch_delete", map[string]any{"id": "w1"})
		if got := strings.Contains(r.text, "no decision model is configured"); got != c.warn {
			t.Errorf("env %v: warned %v, want %v:\n%s", c.env, got, c.warn, r.text)
		}
	}
}
