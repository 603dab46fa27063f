//go:build linux

package tui

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/taskctl"
)

// The three front ends share one task service (taskctl); this drives the
// same scenarios through each of them — the CLI and the MCP server as the
// real binary, the shell's model in this process — and holds them to the
// same outcome. It lives with the shell because the shell's model is
// driven with this package's test helpers.

// frontEnd is one way in. Each action returns what the front end said, to
// be checked for words every front end must say (an id, a process group).
type frontEnd struct {
	name string
	// run runs command in the foreground until the front end returns.
	run func(t *testing.T, w world, command string) string
	// detach runs command in the foreground and detaches it once it is up.
	detach func(t *testing.T, w world, command string) string
	// kill stops task id; want is what it must say about it.
	kill func(t *testing.T, w world, id string, want ...string)
}

func TestFrontEndsAgree(t *testing.T) {
	for _, fe := range []frontEnd{cliFrontEnd(), shellFrontEnd(), mcpFrontEnd()} {
		t.Run(fe.name, func(t *testing.T) {
			t.Run("run to exit", func(t *testing.T) {
				w := newWorld(t)
				said := fe.run(t, w, "printf 'o%st\\n' u; exit 3")
				task := onlyTask(t, w)
				if task.State() != bgtasks.Exited || task.Result.ExitCode != 3 {
					t.Fatalf("record: %s %+v", task.State(), task.Result)
				}
				mustSay(t, said, "out", "exit 3")
			})
			t.Run("detach", func(t *testing.T) {
				w := newWorld(t)
				said := fe.detach(t, w, "echo re$((1))ady; sleep 60")
				task := onlyTask(t, w)
				if task.State() != bgtasks.Running || task.Mode != bgtasks.Background || task.DetachReason == "" {
					t.Fatalf("record: %s %s %q", task.State(), task.Mode, task.DetachReason)
				}
				mustSay(t, said, task.ID, "background")
			})
			t.Run("kill a running task", func(t *testing.T) {
				w := newWorld(t)
				task := startBackground(t, w, "sleep 60")
				fe.kill(t, w, task.ID, task.ID)
				after := mustGet(t, w, task.ID)
				if after.State() != bgtasks.Killed {
					t.Fatalf("record after kill: %s %+v", after.State(), after.Result)
				}
				mustBeGone(t, after)
			})
			t.Run("kill a lost task whose command still runs", func(t *testing.T) {
				w := newWorld(t)
				// It ignores the hang-up its terminal gets when the
				// supervisor goes, as a daemon would.
				task := startBackground(t, w, "trap '' HUP; sleep 60")
				killSupervisor(t, w, task)
				fe.kill(t, w, task.ID, task.ID, strconv.Itoa(task.PGID))
				mustBeGone(t, task)
			})
			t.Run("kill a task whose supervisor exits before answering", func(t *testing.T) {
				w := newWorld(t)
				// It ignores SIGTERM, so the kill waits out its grace; the
				// supervisor dies meanwhile, and the command outlives it
				// (it ignores the hang-up too).
				task := startBackground(t, w, "trap '' TERM HUP; sleep 60")
				go func() {
					time.Sleep(time.Second)
					syscall.Kill(task.SupervisorPID, syscall.SIGKILL)
				}()
				fe.kill(t, w, task.ID, task.ID, strconv.Itoa(task.PGID))
				mustBeGone(t, task)
				if after := mustGet(t, w, task.ID); after.State() != bgtasks.Lost {
					t.Fatalf("record: %s, want lost", after.State())
				}
			})
		})
	}
}

func cliFrontEnd() frontEnd {
	return frontEnd{
		name: "cli",
		run: func(t *testing.T, w world, command string) string {
			out, code := runCLI(t, w, "run", command)
			return out + "exit " + strconv.Itoa(code)
		},
		detach: func(t *testing.T, w world, command string) string {
			out, code := runCLI(t, w, "run", "--detach-after", "1s", command)
			if code != 0 {
				t.Fatalf("detached run: exit %d\n%s", code, out)
			}
			return out
		},
		kill: func(t *testing.T, w world, id string, want ...string) {
			out, code := runCLI(t, w, "bg", "kill", id)
			if code != 0 {
				t.Fatalf("bg kill: exit %d\n%s", code, out)
			}
			mustSay(t, out, want...)
		},
	}
}

func runCLI(t *testing.T, w world, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, hangdogBin, args...)
	c.Env = w.environ()
	c.Dir = w.dir
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	err := c.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("hangdog %v: %v", args, err)
	}
	return out.String(), c.ProcessState.ExitCode()
}

func shellFrontEnd() frontEnd {
	return frontEnd{
		name: "shell",
		run: func(t *testing.T, w world, command string) string {
			_, tm := w.shell(t)
			enter(tm, command)
			// "✗", as the command line on the screen says "exit 3" too.
			waitFor(t, tm, "out", "✗ exit 3")
			return "out exit 3" // waitFor saw both on the screen
		},
		detach: func(t *testing.T, w world, command string) string {
			_, tm := w.shell(t)
			enter(tm, command)
			waitFor(t, tm, "re1ady")
			tm.Send(tea.KeyMsg{Type: tea.KeyCtrlB})
			waitFor(t, tm, "t1 moved to the background")
			return "t1 moved to the background"
		},
		kill: func(t *testing.T, w world, id string, want ...string) {
			_, tm := w.shell(t)
			enter(tm, "/kill "+id)
			waitFor(t, tm, want...)
			waitUntil(t, "the kill to be recorded", func() bool { return mustGet(t, w, id).State().Ended() })
		},
	}
}

func mcpFrontEnd() frontEnd {
	call := func(t *testing.T, w world, tool string, args map[string]any) string {
		t.Helper()
		client := mcp.NewClient(&mcp.Implementation{Name: "hangdog-test", Version: "1"}, nil)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		c := exec.Command(hangdogBin, "mcp")
		c.Env = w.environ()
		c.Dir = w.dir
		cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: c}, nil)
		if err != nil {
			t.Fatalf("connect to hangdog mcp: %v", err)
		}
		defer cs.Close()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s %v: %v", tool, args, err)
		}
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String()
	}
	return frontEnd{
		name: "mcp",
		run: func(t *testing.T, w world, command string) string {
			return call(t, w, "bash", map[string]any{"command": command})
		},
		detach: func(t *testing.T, w world, command string) string {
			return call(t, w, "bash", map[string]any{"command": command, "timeout_seconds": 1})
		},
		kill: func(t *testing.T, w world, id string, want ...string) {
			mustSay(t, call(t, w, "bg_kill", map[string]any{"id": id}), want...)
		},
	}
}

func (w world) environ() []string {
	return append(os.Environ(), "HANGDOG_HOME="+w.reg.Home(), "XDG_CONFIG_HOME="+filepath.Dir(filepath.Dir(w.userFile)))
}

// startBackground starts command as a background task from this process,
// as any front end would, and returns its record once it runs.
func startBackground(t *testing.T, w world, command string) *bgtasks.Task {
	t.Helper()
	spec, err := taskctl.Resolve(taskctl.Request{Command: command, Cwd: w.dir, Mode: bgtasks.Background, UserFile: w.userFile})
	if err != nil {
		t.Fatal(err)
	}
	link, err := taskctl.Start(w.reg, spec)
	if err != nil {
		t.Fatal(err)
	}
	defer link.Close()
	if ev, err := link.Next(); err != nil || ev.Kind != taskctl.EventStarted {
		t.Fatalf("start %q: %+v %v", command, ev, err)
	}
	var task *bgtasks.Task
	waitUntil(t, "the task to run", func() bool {
		task = mustGet(t, w, link.TaskID)
		return task.State() == bgtasks.Running
	})
	return task
}

// killSupervisor kills a task's supervisor, leaving its command running,
// and waits until the record says the task is lost.
func killSupervisor(t *testing.T, w world, task *bgtasks.Task) {
	t.Helper()
	if err := syscall.Kill(task.SupervisorPID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the task to be lost", func() bool { return mustGet(t, w, task.ID).State() == bgtasks.Lost })
	if syscall.Kill(task.PID, 0) != nil {
		t.Fatal("the command died with its supervisor; the scenario needs it running")
	}
}

func onlyTask(t *testing.T, w world) *bgtasks.Task {
	t.Helper()
	tasks, err := w.reg.List()
	if err != nil || len(tasks) != 1 {
		t.Fatalf("tasks: %v %v", tasks, err)
	}
	return tasks[0]
}

func mustGet(t *testing.T, w world, id string) *bgtasks.Task {
	t.Helper()
	task, err := w.reg.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	return task
}

// mustBeGone fails unless nothing of the task's process group is left.
func mustBeGone(t *testing.T, task *bgtasks.Task) {
	t.Helper()
	waitUntil(t, "the task's processes to be gone", func() bool {
		return syscall.Kill(-task.PGID, 0) == syscall.ESRCH
	})
}

// mustSay checks said for words, in any case: a front end may start a
// sentence with one.
func mustSay(t *testing.T, said string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(strings.ToLower(said), strings.ToLower(w)) {
			t.Fatalf("said %q; want it to say %q", said, w)
		}
	}
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
