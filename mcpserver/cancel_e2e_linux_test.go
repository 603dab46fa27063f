//go:build linux

package mcpserver_test

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hangdog/hangdog/bgtasks"
)

// Issue 13: "a client that gives up after 60 s never kills a command". A
// client whose request times out sends notifications/cancelled with a
// reason that says so (the Go SDK: "context deadline exceeded"); the call's
// command is then moved to the background, not stopped: it is listed by
// bg_tasks, the session is told of the detach at its next result (the
// cancelled call's own result is never read), a server started that way
// still serves, and bg_kill stops it. (A cancel for any other reason, a
// person's Esc, stops the command: TestCancelledCallStopsItsCommand.)
func TestClientTimeoutDetachesTheCommandAndNeverKillsIt(t *testing.T) {
	for _, tc := range []struct{ name, command string }{
		{"server", "python3 -m http.server 0 --bind 127.0.0.1"},
		{"sleep", "sleep 300"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			cs := w.connect()
			// Shorter than the server's first check, so the client gives up
			// while the call is still in the foreground.
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": tc.command}})
			cancel()
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("the call should have timed out at the client: %v", err)
			}
			id := w.runningTask()
			reg := w.registry()
			waitFor(t, "the timed-out call's command to be moved to the background", func() bool {
				task, err := reg.Get(id)
				return err == nil && task.Mode == bgtasks.Background
			})
			if st := w.state(id); st != bgtasks.Running {
				t.Fatalf("task %s is %s after its client gave up; it must keep running", id, st)
			}

			list := call(t, cs, "bg_tasks", nil)
			if !strings.Contains(list.notice, id) || !strings.Contains(list.notice, "client stopped waiting") {
				t.Errorf("the session should be told that %s was moved to the background: %q", id, list.notice)
			}
			tasks, _ := list.data["tasks"].([]any)
			listed := false
			for _, x := range tasks {
				task := x.(map[string]any)
				listed = listed || task["task_id"] == id && task["status"] == "running" && task["mode"] == "background"
			}
			if !listed {
				t.Errorf("bg_tasks does not list %s running in the background: %v", id, list.data)
			}

			if tc.name == "server" {
				w.waitOutput(id, "Serving HTTP on")
				logs := call(t, cs, "bg_logs", map[string]any{"id": id})
				m := regexp.MustCompile(`port (\d+)`).FindStringSubmatch(logs.text)
				if m == nil {
					t.Fatalf("no port in the server's output: %q", logs.text)
				}
				got := call(t, cs, "bash", map[string]any{"command": "curl -s -o /dev/null -w '%{http_code}\\n' http://127.0.0.1:" + m[1] + "/"})
				if !strings.Contains(got.text, "200") {
					t.Errorf("the server its client gave up on should still serve: %+v", got)
				}
			}
			if k := call(t, cs, "bg_kill", map[string]any{"id": id}); k.isError {
				t.Fatalf("bg_kill: %+v", k)
			}
			waitFor(t, "the task to end after bg_kill", func() bool { return w.state(id).Ended() })
			waitFor(t, "no process of the task to be left", func() bool { return len(w.taskProcesses(id)) == 0 })
		})
	}
}
