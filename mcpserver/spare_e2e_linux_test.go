//go:build linux

package mcpserver_test

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

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// spareServer is `hangdog mcp` started by the test itself, so the test
// knows its pid and can kill it.
type spareServer struct {
	cmd *exec.Cmd
	cs  *mcp.ClientSession
}

func (w *world) startServer(env ...string) *spareServer {
	w.t.Helper()
	cmd := w.command("mcp", "--structured")
	cmd.Env = append(cmd.Env, env...)
	client := mcp.NewClient(&mcp.Implementation{Name: "spare-test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		w.t.Fatalf("connect to hangdog mcp: %v", err)
	}
	w.t.Cleanup(func() { cs.Close() })
	return &spareServer{cmd: cmd, cs: cs}
}

// supervisorChildren are the hangdog-supervisor processes that are pid's
// children.
func supervisorChildren(t testing.TB, pid int) []int {
	t.Helper()
	var out []int
	threads, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
	for _, f := range threads {
		b, _ := os.ReadFile(f)
		for _, f := range strings.Fields(string(b)) {
			c, _ := strconv.Atoi(f)
			if exe, _ := os.Readlink("/proc/" + f + "/exe"); strings.HasSuffix(exe, "/hangdog-supervisor") {
				out = append(out, c)
			}
		}
	}
	return out
}

// theSpare waits until the server has exactly one supervisor child that
// runs no task, and returns it.
func theSpare(t testing.TB, w *world, server int) int {
	t.Helper()
	var spare int
	waitFor(t, "the server's spare supervisor", func() bool {
		// A supervisor that ran a task and is exiting has no task child
		// either, and its environment was set before its task was known,
		// as a spare's is: its task names it.
		served := map[int]bool{}
		tasks, _ := w.registry().List()
		for _, tk := range tasks {
			served[tk.SupervisorPID] = true
		}
		spare = 0
		for _, c := range supervisorChildren(t, server) {
			env, _ := os.ReadFile("/proc/" + strconv.Itoa(c) + "/environ")
			if !bytes.Contains(env, []byte("HANGDOG_TASK_ID=")) && !hasTaskChild(c) && !served[c] {
				if spare != 0 {
					return false // two at once would be one too many
				}
				spare = c
			}
		}
		return spare != 0
	})
	return spare
}

func hasTaskChild(pid int) bool {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + strconv.Itoa(pid) + "/children")
	return len(bytes.TrimSpace(b)) > 0
}

// gone: no such process, or a zombie nobody has reaped yet.
func gone(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(b, ')')
	return i > 0 && len(b) > i+2 && b[i+2] == 'Z'
}

// The MCP server keeps one supervisor started for its next bash call: the
// call runs under it (its task records that supervisor), with the call's
// own environment (the server's variables, the session's BASH_ENV that
// carries the cwd, the agent profile), and the next spare is started once
// the call's reply is out — not while the call runs, where its start-up
// would compete with the call for the CPU. A spare is no task: nothing is
// registered for it. One that died is
// passed over. When the session ends, or the server is killed, no spare is
// left behind.
func TestSpareSupervisorRunsTheNextCallAndIsNeverLeftBehind(t *testing.T) {
	w := newWorld(t)
	srv := w.startServer("FROM_SERVER=kept")
	server := srv.cmd.Process.Pid
	spare := theSpare(t, w, server)
	if tasks, err := w.registry().List(); err != nil || len(tasks) != 0 {
		t.Fatalf("a spare supervisor must not be a task: %d tasks, %v", len(tasks), err)
	}

	if err := os.Mkdir(filepath.Join(w.dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	r := call(t, srv.cs, "bash", map[string]any{"command": `cd sub; echo "server=$FROM_SERVER pager=$PAGER trap=$HANGDOG_SHELL_TRAP task=$HANGDOG_TASK_ID"`})
	id, _ := r.data["task_id"].(string)
	task, err := w.registry().Get(id)
	if err != nil {
		t.Fatal(err)
	}
	if task.SupervisorPID != spare {
		t.Errorf("the call ran under supervisor %d, not the spare %d", task.SupervisorPID, spare)
	}
	if want := "server=kept pager=cat trap=1 task=" + id; !strings.Contains(r.text, want) {
		t.Errorf("the command's environment is not the call's: %q, want %q", r.text, want)
	}
	if r := call(t, srv.cs, "bash", map[string]any{"command": "pwd"}); !strings.Contains(r.text, "/sub") {
		t.Errorf("cd did not carry to the next call through the spare: %q", r.text)
	}

	// While a call runs, the server starts no spare: the only supervisor
	// it has is the call's.
	running := theSpare(t, w, server)
	slow := make(chan error, 1)
	go func() {
		res, err := srv.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "sleep 3"}})
		if err == nil && res.IsError {
			err = errors.New("the call's result is an error")
		}
		slow <- err
	}()
	waitFor(t, "the slow call to take the spare", func() bool { return hasTaskChild(running) })
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if c := supervisorChildren(t, server); len(c) != 1 || c[0] != running {
			t.Fatalf("supervisors of the server during a call: %v; want only the call's, %d", c, running)
		}
	}
	if err := <-slow; err != nil {
		t.Fatalf("sleep 3: %v", err)
	}

	// A spare that died is not used: the call starts a supervisor of its
	// own and still runs.
	dead := theSpare(t, w, server)
	if dead == spare {
		t.Fatalf("no new spare after the call took %d", spare)
	}
	syscall.Kill(dead, syscall.SIGKILL)
	waitFor(t, "the killed spare to be reaped", func() bool { return gone(dead) })
	r = call(t, srv.cs, "bash", map[string]any{"command": "echo after-a-dead-spare"})
	if !strings.Contains(r.text, "after-a-dead-spare") || r.isError {
		t.Fatalf("a call after the spare died: %+v", r)
	}
	if task, _ := w.registry().Get(r.data["task_id"].(string)); task == nil || task.SupervisorPID == dead {
		t.Errorf("the call ran under the dead spare: %+v", task)
	}
	if tasks, _ := w.registry().List(); len(tasks) != 4 {
		t.Errorf("four calls, %d tasks: a spare was registered", len(tasks))
	}

	// The session ends: the server lets its spare go before it exits.
	last := theSpare(t, w, server)
	srv.cs.Close() // closes its stdin and waits for it to exit
	if !gone(last) {
		t.Errorf("spare %d outlived its server", last)
	}

	// Killed outright, the server cannot let it go; its end of the link
	// closes and the spare exits by itself.
	srv = w.startServer()
	killed := theSpare(t, w, srv.cmd.Process.Pid)
	srv.cmd.Process.Kill()
	waitFor(t, "the spare of a killed server to exit", func() bool { return gone(killed) })
}
