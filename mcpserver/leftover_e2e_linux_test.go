//go:build linux

package mcpserver_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// taskProcesses are the live processes that carry task id's
// HANGDOG_TASK_ID (every process a task's command starts inherits it) and
// this world's home (ids are per home, and others' tests run too).
func (w *world) taskProcesses(id string) []int {
	var out []int
	want := []byte("\x00HANGDOG_TASK_ID=" + id + "\x00")
	home := []byte("\x00HANGDOG_HOME=" + w.home + "\x00")
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		env, err := os.ReadFile(d + "/environ")
		env = append([]byte{0}, env...)
		if err != nil || !bytes.Contains(env, want) || !bytes.Contains(env, home) {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(d))
		if !gone(pid) {
			out = append(out, pid)
		}
	}
	return out
}

func strs(v any) []string {
	var out []string
	l, _ := v.([]any)
	for _, x := range l {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

// Issue 13: `python3 -m http.server 0 & sleep 0.5` through MCP bash returns
// at once with the command's exit and the server it left running, its
// address in the structured result and in the text; the next call reaches
// it; bg_kill stops it; then nothing of the task is left running.
func TestLeftRunningServerIsReportedReachableAndKilled(t *testing.T) {
	w := newWorld(t)
	cs := w.connect()
	start := time.Now()
	// The command sleeps 0.5 s; 2 s, so that python has started
	// listening by the time the command exits on a loaded machine.
	r := call(t, cs, "bash", map[string]any{"command": "python3 -m http.server 0 --bind 127.0.0.1 & sleep 2"})
	if took := time.Since(start); took > 8*time.Second {
		t.Errorf("the call took %s; it should return once the command exits", took)
	}
	if r.isError || r.data["status"] != "detached" || r.data["exit_code"] != 0.0 {
		t.Fatalf("want detached with exit code 0, not an error: %+v", r)
	}
	t.Logf("the result's text:\n%s", r.text)
	id := r.data["task_id"].(string)
	left, _ := r.data["left_running"].([]any)
	if len(left) != 1 {
		t.Fatalf("left_running %v, want the one server", r.data["left_running"])
	}
	proc := left[0].(map[string]any)
	argv, listening := strs(proc["argv"]), strs(proc["listening"])
	pid := int(proc["pid"].(float64))
	if !strings.Contains(strings.Join(argv, " "), "http.server") || len(listening) != 1 {
		t.Fatalf("left_running %v, want the http.server with its address", proc)
	}
	addr := listening[0]
	if m := regexp.MustCompile(`port (\d+)`).FindStringSubmatch(r.text); m == nil || !strings.HasSuffix(addr, ":"+m[1]) {
		t.Errorf("listening %q does not match the server's banner in %q", addr, r.text)
	}
	if want := fmt.Sprintf("It left running: pid %d ", pid); !strings.Contains(r.text, want) ||
		!strings.Contains(r.text, "http.server") || !strings.Contains(r.text, "listening on "+addr) || !strings.HasPrefix(r.text, "Exit 0 after") {
		t.Errorf("the text should say the exit and name the server and its address (%s): %q", addr, r.text)
	}

	got := call(t, cs, "bash", map[string]any{"command": "curl -s -o /dev/null -w '%{http_code}\\n' http://" + addr + "/"})
	if !strings.Contains(got.text, "200") {
		t.Errorf("the next call could not reach the server at %s: %+v", addr, got)
	}
	if st := w.state(id); st.Ended() {
		t.Fatalf("task %s is %s while its server runs", id, st)
	}
	if k := call(t, cs, "bg_kill", map[string]any{"id": id}); k.isError {
		t.Fatalf("bg_kill: %+v", k)
	}
	waitFor(t, "the task to end", func() bool { return w.state(id).Ended() })
	deadline := time.Now().Add(30 * time.Second)
	for left := w.taskProcesses(id); len(left) > 0 || !gone(pid); left = w.taskProcesses(id) {
		if time.Now().After(deadline) {
			var desc []string
			for _, p := range left {
				cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p))
				desc = append(desc, fmt.Sprintf("%d %q", p, cmd))
			}
			t.Fatalf("processes of task %s left after bg_kill (server pid %d gone: %v): %s", id, pid, gone(pid), strings.Join(desc, "; "))
		}
		time.Sleep(20 * time.Millisecond)
	}
}
