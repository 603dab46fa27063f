package main

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
)

// A command that starts a server with & and exits: the run returns at once
// with the command's status and the server's pid and address, the server
// keeps serving (the next run reaches it), the task is listed as running
// until bg kill, and then nothing of it is left.
func TestLeftRunningServerIsKeptAndReported(t *testing.T) {
	e := newEnv(t)
	start := time.Now()
	r := e.run("run", "--json", "--", "python3 -m http.server 0 --bind 127.0.0.1 & sleep 0.5; exit 4")
	took := time.Since(start)
	if r.code != 4 {
		t.Errorf("exit %d, want the command's 4; stderr %s", r.code, r.stderr)
	}
	rep := decodeReport(t, r.stdout)
	if took > 5*time.Second {
		t.Errorf("the run took %s; it should return once the command exits", took)
	}
	if rep.Status != "detached" || rep.ExitCode == nil || *rep.ExitCode != 4 {
		t.Fatalf("report %+v, want detached with exit code 4", rep)
	}
	if len(rep.LeftRunning) != 1 || len(rep.LeftRunning[0].Listening) != 1 ||
		!strings.Contains(strings.Join(rep.LeftRunning[0].Argv, " "), "http.server") {
		t.Fatalf("left running %+v, want the http.server with its address", rep.LeftRunning)
	}
	addr := rep.LeftRunning[0].Listening[0]
	if m := regexp.MustCompile(`port (\d+)`).FindStringSubmatch(rep.Output); m == nil || !strings.HasSuffix(addr, ":"+m[1]) {
		t.Errorf("listening %q does not match the server's banner %q", addr, rep.Output)
	}
	if !strings.Contains(rep.Reason, "command exited 4") || !strings.Contains(rep.Reason, addr) {
		t.Errorf("reason %q should say the command's status and the address", rep.Reason)
	}

	get := fmt.Sprintf("python3 -c 'import urllib.request; print(urllib.request.urlopen(\"http://%s/\").status)'", addr)
	if g := decodeReport(t, e.run("run", "--json", "--", get).stdout); g.Output != "200\n" {
		t.Errorf("the next run could not reach the server: %+v", g)
	}
	if tk := e.task(rep.TaskID); tk.State != "running" || tk.Mode != "background" {
		t.Errorf("task %s is %s/%s while its server runs, want running/background", rep.TaskID, tk.State, tk.Mode)
	}
	if k := e.run("bg", "kill", rep.TaskID); k.code != 0 {
		t.Fatalf("bg kill: %d %s", k.code, k.stderr)
	}
	tk := e.task(rep.TaskID)
	if tk.State != "killed" || tk.Result == nil || tk.Result.ExitCode != 4 {
		t.Errorf("after bg kill: %+v, want killed with the command's exit code 4", tk)
	}
	eventually(t, "no process of this home to be left", 10*time.Second, func() bool {
		return len(e.processes()) == 0
	})
}

// What a command left is described once it holds still: a server reached
// through a version manager's shim, which runs a series of short helpers
// before it execs the interpreter (pyenv's take 0.25-0.5 s here), is
// reported as the server with its address, not as a helper that was
// running when the command exited.
func TestLeftRunningIsDescribedOnceItSettles(t *testing.T) {
	e := newEnv(t)
	py, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		t.Skipf("python3: %v", err)
	}
	shim := fmt.Sprintf(`sh -c 'for i in 1 2 3 4 5 6 7 8; do sh -c "sleep 0.05"; done; exec %s -m http.server 0 --bind 127.0.0.1' & exit 0`, strings.TrimSpace(string(py)))
	rep := decodeReport(t, e.run("run", "--json", "--", shim).stdout)
	defer e.run("bg", "kill", rep.TaskID)
	if len(rep.LeftRunning) != 1 || len(rep.LeftRunning[0].Listening) != 1 ||
		!strings.Contains(strings.Join(rep.LeftRunning[0].Argv, " "), "http.server") {
		t.Fatalf("left running %+v, want the http.server with its address", rep.LeftRunning)
	}
	if !strings.Contains(rep.Reason, rep.LeftRunning[0].Listening[0]) {
		t.Errorf("reason %q does not name the address", rep.Reason)
	}
}

// Left-over processes that end by themselves end the task: its result is
// the command's status, announced once.
func TestLeftRunningEndsTheTaskWhenItEnds(t *testing.T) {
	e := newEnv(t)
	r := e.run("run", "--json", "--", "(trap '' HUP; sleep 1) & exit 3")
	rep := decodeReport(t, r.stdout)
	if r.code != 3 || rep.Status != "detached" || len(rep.LeftRunning) == 0 {
		t.Fatalf("exit %d report %+v, want 3, detached, a process left running", r.code, rep)
	}
	eventually(t, "the task to end", 10*time.Second, func() bool {
		tk := e.task(rep.TaskID)
		return tk.State == "exited" && tk.Result != nil && tk.Result.ExitCode == 3
	})
	ev := e.run("events", "--all").stdout
	if n := strings.Count(ev, rep.TaskID+" exited"); n != 1 {
		t.Errorf("%d exit events for %s, want 1:\n%s", n, rep.TaskID, ev)
	}
}

func decodeReport(t *testing.T, out string) runReport {
	t.Helper()
	var rep runReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("run --json: %v\n%s", err, out)
	}
	return rep
}

// A lost task whose command had exited leaving a process running: its
// supervisor is killed outright, the left-over process (a daemon: it
// ignores the hang-up) keeps running in a group of its own, and `bg kill`
// finds it by the task's id and home in its environment and stops it.
func TestKillOfALostTaskStopsWhatItsCommandLeftRunning(t *testing.T) {
	e := newEnv(t)
	r := e.run("run", "--json", "--", "setsid sleep 300 & sleep 0.3")
	rep := decodeReport(t, r.stdout)
	if rep.Status != "detached" || len(rep.LeftRunning) != 1 {
		t.Fatalf("report %+v, want detached with the sleep left running", rep)
	}
	left := rep.LeftRunning[0].PID
	reg, err := bgtasks.Open(e.home)
	if err != nil {
		t.Fatal(err)
	}
	task, err := reg.Get(rep.TaskID)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(task.SupervisorPID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the task to be found lost", 10*time.Second, func() bool { return e.task(rep.TaskID).State == "lost" })
	if syscall.Kill(left, 0) != nil {
		t.Fatalf("the left-over sleep %d died with its supervisor; the test needs it running", left)
	}
	k := e.run("bg", "kill", rep.TaskID)
	if k.code != 0 || !strings.Contains(k.stdout, "was lost") || !strings.Contains(k.stdout, strconv.Itoa(left)) {
		t.Fatalf("bg kill of the lost task: exit %d stdout %q stderr %q, want it to name pid %d", k.code, k.stdout, k.stderr, left)
	}
	eventually(t, "no process of this home to be left", 10*time.Second, func() bool {
		return len(e.processes()) == 0
	})
}
