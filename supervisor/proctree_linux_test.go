//go:build linux

package supervisor

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestSignalTreeReachesOrphanedGrandchildren makes the test process a child
// subreaper, as a supervisor is, and checks that a double-forked grandchild
// that ignores SIGTERM is still found and stopped.
func TestSignalTreeReachesOrphanedGrandchildren(t *testing.T) {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		t.Skip("cannot become a subreaper:", err)
	}
	dir := t.TempDir()
	pidfile := dir + "/orphan"
	// The middle shell exits at once, orphaning the sleeper: it is
	// reparented to us, not to init, because we are the subreaper.
	cmd := exec.Command("bash", "-c", `( trap '' TERM; exec sleep 300 ) & echo $! > `+pidfile)
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	var orphan int
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		b, _ := os.ReadFile(pidfile)
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			orphan = n
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if orphan == 0 {
		t.Fatal("the orphan never started")
	}
	// The pid is written before the subshell runs its trap: signalling
	// earlier would kill it, and the test would prove nothing.
	waitIgnores(t, orphan, syscall.SIGTERM)
	if !slices.Contains(descendants(os.Getpid()), orphan) {
		t.Fatalf("orphan %d not among our descendants %v", orphan, descendants(os.Getpid()))
	}
	signalTree(os.Getpid(), syscall.SIGTERM)
	time.Sleep(100 * time.Millisecond)
	if syscall.Kill(orphan, 0) != nil {
		t.Fatal("the orphan died of SIGTERM, which it ignores; the test proves nothing")
	}
	if n := signalTree(os.Getpid(), syscall.SIGKILL); n < 1 {
		t.Fatalf("signalTree reached %d processes", n)
	}
	var ws unix.WaitStatus
	if _, err := unix.Wait4(orphan, &ws, 0, nil); err != nil {
		t.Fatalf("reap the orphan: %v", err)
	}
	if !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("orphan ended with %v, want SIGKILL", ws)
	}
}

// waitIgnores waits until pid's /proc status shows sig as ignored.
func waitIgnores(t *testing.T, pid int, sig syscall.Signal) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
		for _, line := range strings.Split(string(b), "\n") {
			if mask, ok := strings.CutPrefix(line, "SigIgn:"); ok {
				if m, err := strconv.ParseUint(strings.TrimSpace(mask), 16, 64); err == nil && m&(1<<(uint(sig)-1)) != 0 {
					return
				}
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("process %d never ignored %v", pid, sig)
}

// anyChild, run in a process of its own (this test's binary again, so no
// other test's children count): no child, then a running one, an exited
// one not yet reaped, and, as a subreaper, an orphaned grandchild whose
// parent is gone — each answered as descendants would.
func TestAnyChildSeesWhatIsLeftOfTheTree(t *testing.T) {
	if os.Getenv("HANGDOG_TEST_ANYCHILD") == "1" {
		anyChildSteps()
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestAnyChildSeesWhatIsLeftOfTheTree$")
	cmd.Env = append(os.Environ(), "HANGDOG_TEST_ANYCHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	var got []string
	for _, l := range strings.Split(string(out), "\n") {
		if s, ok := strings.CutPrefix(l, "anychild "); ok {
			got = append(got, s)
		}
	}
	want := []string{"none=false", "running=true", "unreaped=true", "reaped=false", "orphan=true", "orphan-gone=false"}
	if !slices.Equal(got, want) {
		t.Errorf("anyChild answered %v; want %v\n%s", got, want, out)
	}
}

func anyChildSteps() {
	say := func(step string) {
		fmt.Printf("anychild %s=%v\n", step, anyChild())
		if len(descendants(os.Getpid())) > 0 != anyChild() {
			fmt.Printf("anychild %s: descendants says %v\n", step, descendants(os.Getpid()))
		}
	}
	say("none")
	sleeper := exec.Command("sleep", "30")
	if err := sleeper.Start(); err != nil {
		panic(err)
	}
	say("running")
	sleeper.Process.Kill()
	var si unix.Siginfo
	unix.Waitid(unix.P_PID, sleeper.Process.Pid, &si, unix.WEXITED|unix.WNOWAIT, nil)
	fmt.Printf("anychild unreaped=%v\n", anyChild()) // a zombie is no descendant in /proc's lists
	sleeper.Wait()
	say("reaped")
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		panic(err)
	}
	// The shell exits at once, leaving its sleeper to us.
	out, err := exec.Command("bash", "-c", `sleep 30 >/dev/null 2>&1 & echo $!`).Output()
	if err != nil {
		panic(err)
	}
	orphan, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	say("orphan")
	syscall.Kill(orphan, syscall.SIGKILL)
	var ws unix.WaitStatus
	unix.Wait4(orphan, &ws, 0, nil)
	say("orphan-gone")
}
