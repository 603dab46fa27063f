//go:build linux

package faults

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A HANGDOG_HOME of 200 characters puts each task's socket far past the
// 107-byte limit of a socket address. run, send, detach (by id and by
// --detach-after) and kill must all still reach the task.
func TestLongHomeKeepsEveryTaskReachable(t *testing.T) {
	w := newWorld(t)
	long := w.root
	for len(long) < 200 {
		long = filepath.Join(long, "a-rather-long-directory-name")
	}
	w.home = long[:200]
	if len(w.home) != 200 {
		t.Fatalf("home is %d characters", len(w.home))
	}

	if r := w.run("run", "--", "echo", "hi"); r.code != 0 || !strings.Contains(r.stdout, "hi") {
		t.Fatalf("run: exit %d %q %s", r.code, r.stdout, r.stderr)
	}

	// send, then kill.
	r := w.run("bg", "run", "--", `read x; echo "got:$x"; sleep 100`)
	if r.code != 0 {
		t.Fatalf("bg run: %s", r.stderr)
	}
	id := strings.TrimSpace(r.stdout)
	eventually(t, "the task to read its terminal", 10*time.Second, func() bool {
		return w.run("bg", "send", id, `hello\n`).code == 0
	})
	eventually(t, "the sent line in the log", 10*time.Second, func() bool {
		return strings.Contains(w.run("bg", "logs", id).stdout, "got:hello")
	})
	if r := w.run("bg", "kill", id); r.code != 0 {
		t.Fatalf("bg kill: exit %d: %s", r.code, r.stderr)
	}
	if st := taskState(t, w, id); st != "killed" {
		t.Fatalf("after bg kill the task is %q", st)
	}

	// --detach-after.
	r = w.run("run", "--json", "--detach-after", "500ms", "--", "sleep", "30")
	var got map[string]any
	json.Unmarshal([]byte(r.stdout), &got)
	if got["status"] != "detached" {
		t.Fatalf("--detach-after: status %v, stderr %s", got["status"], r.stderr)
	}
	w.run("bg", "kill", got["task_id"].(string))

	// bg detach ID from another process.
	c := w.command(t.Context(), "run", "--json", "--", "sleep", "30")
	var out syncBuffer
	c.Stdout = &out
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	var fid string
	eventually(t, "the foreground run to be listed", 10*time.Second, func() bool {
		for _, tk := range listTasks(t, w) {
			if tk.State == "running" && tk.Mode == "foreground" {
				fid = tk.ID
				return true
			}
		}
		return false
	})
	if r := w.run("bg", "detach", fid, "from a test"); r.code != 0 {
		t.Fatalf("bg detach: exit %d: %s", r.code, r.stderr)
	}
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		c.Process.Kill()
		t.Fatal("the foreground run did not return after bg detach")
	}
	if !strings.Contains(out.String(), `"detached"`) {
		t.Fatalf("run after bg detach printed %s", out.String())
	}
	w.run("bg", "kill", fid)
}
