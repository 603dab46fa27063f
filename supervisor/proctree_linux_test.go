//go:build linux

package supervisor

import (
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
