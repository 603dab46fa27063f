//go:build linux

package faults

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hangdog/hangdog/bgtasks"
)

// A truncated meta.json and a garbage result.json: both tasks are still
// listed (marked damaged), their logs read, wait says what is wrong, rm and
// prune remove them.
func TestCorruptTaskFilesKeepTheTaskReachable(t *testing.T) {
	w := newWorld(t)
	ids := make([]string, 2)
	for i := range ids {
		rep, r := w.runJSON("echo", "output-of-task")
		if r.code != 0 {
			t.Fatalf("run: %s", r.stderr)
		}
		ids[i] = rep["task_id"].(string)
	}
	meta := bgtasks.Opened(w.home).MetaPath(ids[0])
	b, _ := os.ReadFile(meta)
	os.WriteFile(meta, b[:len(b)/2], 0o600)
	os.WriteFile(bgtasks.Opened(w.home).ResultPath(ids[1]), []byte("garbage\x00"), 0o600)

	listed := map[string]listedTask{}
	for _, tk := range listTasks(t, w) {
		listed[tk.ID] = tk
	}
	for _, id := range ids {
		tk, ok := listed[id]
		if !ok {
			t.Fatalf("task %s is not listed: %v", id, listed)
		}
		if !strings.Contains(tk.Damaged, "damaged") || tk.State != "lost" {
			t.Errorf("task %s listed as %+v, want lost and damaged", id, tk)
		}
		if r := w.run("bg", "logs", id); r.code != 0 || !strings.Contains(r.stdout, "output-of-task") {
			t.Errorf("bg logs %s: exit %d %q %s", id, r.code, r.stdout, r.stderr)
		}
		r := w.run("bg", "wait", id)
		if r.code == 0 || !strings.Contains(r.stderr, "damaged") || strings.Contains(r.stderr, "invalid character") && !strings.Contains(r.stderr, "is damaged") {
			t.Errorf("bg wait %s: exit %d, stderr %q; want a clear message", id, r.code, r.stderr)
		}
	}
	if r := w.run("bg", "ls", "--all"); !strings.Contains(r.stdout, "(damaged)") {
		t.Errorf("bg ls does not mark the damaged tasks:\n%s", r.stdout)
	}
	if r := w.run("bg", "rm", ids[0]); r.code != 0 {
		t.Errorf("bg rm %s: exit %d: %s", ids[0], r.code, r.stderr)
	}
	if r := w.run("bg", "prune"); r.code != 0 {
		t.Errorf("bg prune: exit %d: %s", r.code, r.stderr)
	}
	entries, _ := os.ReadDir(filepath.Join(w.home, "tasks"))
	for _, e := range entries {
		if e.Name() == ids[0] || e.Name() == ids[1] {
			t.Errorf("task %s is still on disk after rm and prune", e.Name())
		}
	}
}
