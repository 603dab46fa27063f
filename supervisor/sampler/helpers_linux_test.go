//go:build linux

package sampler

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// ptyTask is a bash script running on its own PTY, as the supervisor runs a
// command: bash is the session leader and the test process is the root.
type ptyTask struct {
	cmd    *exec.Cmd
	master *os.File
	out    *lockedBuffer
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func startOnPTY(t *testing.T, script string) *ptyTask {
	t.Helper()
	cmd := exec.Command("bash", "-c", script)
	master, err := pty.Start(cmd)
	if err != nil {
		t.Fatalf("start %q on a pty: %v", script, err)
	}
	task := &ptyTask{cmd: cmd, master: master, out: &lockedBuffer{}}
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		_, _ = io.Copy(task.out, master)
	}()
	t.Cleanup(func() {
		// The whole tree, not only bash's process group: a process that
		// left the group (setsid, script's inner shell) keeps the slave
		// open, and the master's read, blocking since pty.Start took its
		// Fd, would wait for it forever.
		killTree(cmd.Process.Pid)
		_ = cmd.Wait()
		_ = master.Close()
		select {
		case <-drained:
		case <-time.After(10 * time.Second):
			t.Errorf("the PTY of %q is still open 10 s after its tree was killed: a process escaped the tree", script)
		}
	})
	return task
}

// killTree SIGKILLs pid's process group and every descendant, whatever its
// group or session. The tree is listed before anything is killed, so no
// child is reparented away first; each process is stopped before its
// children are listed, so none can fork past the list.
func killTree(pid int) {
	_ = unix.Kill(-pid, unix.SIGSTOP)
	var tree []int
	for queue := []int{pid}; len(queue) > 0; {
		p := queue[0]
		queue = queue[1:]
		_ = unix.Kill(p, unix.SIGSTOP)
		tree = append(tree, p)
		tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", p))
		for _, task := range tasks {
			b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", p, task.Name()))
			for _, f := range strings.Fields(string(b)) {
				if child, err := strconv.Atoi(f); err == nil {
					queue = append(queue, child)
				}
			}
		}
	}
	_ = unix.Kill(-pid, unix.SIGKILL)
	for _, p := range tree {
		_ = unix.Kill(p, unix.SIGKILL)
	}
}

func (p *ptyTask) pid() int { return p.cmd.Process.Pid }

// startPlain starts a command with no terminal and kills its process group
// at cleanup.
func startPlain(t *testing.T, name string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.SysProcAttr = &unix.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	t.Cleanup(func() {
		_ = unix.Kill(-cmd.Process.Pid, unix.SIGKILL)
		_ = cmd.Wait()
	})
	return cmd
}

// waitFor samples until cond holds. The deadline only bounds a broken test;
// nothing is asserted about how long it took.
func waitFor(t *testing.T, s *Sampler, what string, cond func(Tree) bool) Tree {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var last Tree
	for {
		tree, err := s.Sample()
		if err != nil {
			t.Fatalf("Sample: %v", err)
		}
		if cond(tree) {
			return tree
		}
		last = tree
		if time.Now().After(deadline) {
			t.Fatalf("never saw %s; last sample:\n%s", what, dump(last))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func dump(tree Tree) string {
	var b strings.Builder
	fmt.Fprintf(&b, "window=%v cpu=%.1f%% running=%v timer=%v fg=%d mode=%q readingTTY=%v(%d %s by %s) complete=%v\n",
		tree.Window, tree.CPUPercent, tree.AnyRunning, tree.TimerSleep, tree.ForegroundPGID, tree.TTYMode,
		tree.ReadingTTY, tree.ReadingTTYPID, tree.ReadingTTYComm, tree.ReadingTTYBy, tree.Complete)
	for _, p := range tree.Procs {
		fmt.Fprintf(&b, "  %d<%d pg=%d %c %q cpu=%.1f wchar=%d sys=%d/%s wchan=%s fd0=%s readfd=%s socks=%v new=%v unread=%v\n",
			p.PID, p.PPID, p.PGID, p.State, p.Cmdline, p.CPUPercent, p.WChar, p.Syscall, p.SyscallName,
			p.Wchan, p.Fd0, p.ReadFd, p.Sockets, p.New, p.Unread)
	}
	return b.String()
}

func findProc(tree Tree, match func(Proc) bool) (Proc, bool) {
	for _, p := range tree.Procs {
		if match(p) {
			return p, true
		}
	}
	return Proc{}, false
}

func byPID(pid int) func(Proc) bool { return func(p Proc) bool { return p.PID == pid } }

func byCmdline(cmdline string) func(Proc) bool {
	return func(p Proc) bool { return p.Cmdline == cmdline }
}

func slavePath(t *testing.T, master *os.File) string {
	t.Helper()
	name, err := ptsName(master)
	if err != nil {
		t.Fatal(err)
	}
	return name
}

func ptsName(master *os.File) (string, error) {
	conn, err := master.SyscallConn()
	if err != nil {
		return "", err
	}
	var n uint32
	var ioErr error
	if err := conn.Control(func(fd uintptr) { n, ioErr = unix.IoctlGetUint32(int(fd), unix.TIOCGPTN) }); err != nil {
		return "", err
	}
	if ioErr != nil {
		return "", fmt.Errorf("TIOCGPTN: %w", ioErr)
	}
	return fmt.Sprintf("/dev/pts/%d", n), nil
}
