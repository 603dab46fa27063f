package bgtasks

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// startSupervisorStandIn starts a real process to play a task's supervisor.
func startSupervisorStandIn(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return cmd
}

func createWithSupervisor(t *testing.T, r *Registry, pid int, ticks uint64) *Task {
	t.Helper()
	task, err := r.Create(Meta{Command: "make -j8", State: Running, SupervisorPID: pid, SupervisorTicks: ticks})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(task.OutputPath(), []byte("building\n\x1b[1mstep 3/9\x1b[0m\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return task
}

func lostEvents(t *testing.T, r *Registry, id string) []Event {
	t.Helper()
	evs, err := r.Events(0)
	if err != nil {
		t.Fatal(err)
	}
	var lost []Event
	for _, e := range evs {
		if e.Kind == EventLost && e.TaskID == id {
			lost = append(lost, e)
		}
	}
	return lost
}

func TestReconcileDeadSupervisorMarksLostExactlyOnce(t *testing.T) {
	r := openTemp(t)
	sup := startSupervisorStandIn(t)
	ticks, err := ProcStartTicks(sup.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	task := createWithSupervisor(t, r, sup.Process.Pid, ticks)

	if got, err := r.Get(task.ID); err != nil || got.State() != Running {
		t.Fatalf("with the supervisor alive: %v, %v; want running", got.State(), err)
	}
	if err := sup.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = sup.Wait()

	// Many processes and goroutines notice at once.
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if _, err := r.Get(task.ID); err != nil {
				t.Error(err)
			}
		})
	}
	outs := runHelpers(t, 10, r.Home(), "get", task.ID)
	wg.Wait()
	for _, out := range outs {
		if strings.TrimSpace(out) != string(Lost) {
			t.Fatalf("a helper saw state %q, want lost", out)
		}
	}
	got, err := r.Get(task.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.State() != Lost || got.Result.Reason != LostReason || got.Result.ExitCode != LostExitCode {
		t.Fatalf("result %+v, want lost with the lost reason", got.Result)
	}
	if got.Result.OutputBytes == 0 {
		t.Fatal("lost result does not record the output size")
	}
	lost := lostEvents(t, r, task.ID)
	if len(lost) != 1 {
		t.Fatalf("%d lost events, want exactly 1", len(lost))
	}
	if lost[0].Command != "make -j8" || !strings.Contains(lost[0].Tail, "step 3/9") || strings.Contains(lost[0].Tail, "\x1b") {
		t.Fatalf("lost event %+v: want the command and a plain-text tail", lost[0])
	}
	if lost[0].ExitCode != nil {
		t.Fatalf("lost event claims exit code %d", *lost[0].ExitCode)
	}
}

func TestReconcileZombieSupervisorIsLost(t *testing.T) {
	r := openTemp(t)
	sup := exec.Command("sleep", "600")
	if err := sup.Start(); err != nil {
		t.Fatal(err)
	}
	pid := sup.Process.Pid
	ticks, err := ProcStartTicks(pid)
	if err != nil {
		t.Fatal(err)
	}
	task := createWithSupervisor(t, r, pid, ticks)
	if err := sup.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	// Not reaped yet: the pid stays, as a zombie, until Wait.
	for {
		st, err := readProcStat(pid)
		if err != nil {
			t.Fatal(err)
		}
		if st.state == 'Z' {
			break
		}
		time.Sleep(time.Millisecond)
	}
	got, err := r.Get(task.ID)
	if err != nil {
		t.Fatal(err)
	}
	_ = sup.Wait()
	if got.State() != Lost {
		t.Fatalf("state with a zombie supervisor: %s, want lost", got.State())
	}
}

func TestReconcilePIDReuseGuard(t *testing.T) {
	r := openTemp(t)
	pid, ticks := aliveSupervisor(t)
	reused := createWithSupervisor(t, r, pid, ticks+1)
	same := createWithSupervisor(t, r, pid, ticks)
	if got, err := r.Get(reused.ID); err != nil || got.State() != Lost {
		t.Fatalf("alive pid with other start ticks: %v, %v; want lost", got.State(), err)
	}
	if got, err := r.Get(same.ID); err != nil || got.State() != Running {
		t.Fatalf("alive pid with its own start ticks: %v, %v; want running", got.State(), err)
	}
}

func TestReconcileSupervisorThatNeverReported(t *testing.T) {
	r := openTemp(t)
	fresh := createWithSupervisor(t, r, 0, 0)
	stale := createWithSupervisor(t, r, 0, 0)
	old := time.Now().Add(-neverReportedAfter - time.Second)
	if err := os.Chtimes(stale.MetaPath(), old, old); err != nil {
		t.Fatal(err)
	}
	tasks, err := r.List()
	if err != nil {
		t.Fatal(err)
	}
	states := map[string]State{}
	for _, task := range tasks {
		states[task.ID] = task.State()
	}
	if states[fresh.ID] != Running || states[stale.ID] != Lost {
		t.Fatalf("states %v: want %s running (just created) and %s lost (silent 30 s)", states, fresh.ID, stale.ID)
	}
}

func TestReconcileKeepsRecordedResult(t *testing.T) {
	r := openTemp(t)
	sup := startSupervisorStandIn(t)
	task := createWithSupervisor(t, r, sup.Process.Pid, 0)
	if err := r.WriteResult(task.ID, Result{State: Exited, ExitCode: 2}); err != nil {
		t.Fatal(err)
	}
	_ = sup.Process.Kill()
	_ = sup.Wait()
	got, err := r.Get(task.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.State() != Exited || got.Result.ExitCode != 2 || len(lostEvents(t, r, task.ID)) != 0 {
		t.Fatalf("a task with a result was reconciled: %+v", got.Result)
	}
}

func TestProcStartTicksWithHostileCommandName(t *testing.T) {
	// comm is free text: a program can be called ") S 1 2 (x" and fool a
	// parser that splits on the first ')' or on spaces.
	bin := filepath.Join(t.TempDir(), ") Z 1 (x)")
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep binary")
	}
	data, err := os.ReadFile(sleep)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	st, err := readProcStat(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	self, err := ProcStartTicks(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if st.state == 'Z' || st.startTicks < self {
		t.Fatalf("child stat %+v: want a live process started no earlier than this test (%d)", st, self)
	}
	if _, err := ProcStartTicks(-1); err == nil {
		t.Fatal("ProcStartTicks(-1) succeeded")
	}
}

func TestParseProcStat(t *testing.T) {
	line := "1234 (a) b (c)) S 1 1234 1234 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 200 18446744073709551615\n"
	st, err := parseProcStat([]byte(line), "test")
	if err != nil {
		t.Fatal(err)
	}
	if st.state != 'S' || st.startTicks != 987654 {
		t.Fatalf("parsed %+v, want state S, start 987654", st)
	}
	for _, bad := range []string{"", "1234 no paren", "1 (x) S 1 2"} {
		if _, err := parseProcStat([]byte(bad), "test"); err == nil {
			t.Errorf("parseProcStat(%q) succeeded", bad)
		}
	}
}
