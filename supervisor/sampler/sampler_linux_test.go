//go:build linux

package sampler

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestReadingTTYModes(t *testing.T) {
	cases := []struct {
		name, script, reader string
		mode                 TTYMode
		syscall              string
	}{
		{"line", "read answer", "bash", TTYLine, "read"},
		{"secret", "stty -echo; read password", "bash", TTYSecret, "read"},
		{"raw", "stty raw -echo; dd bs=1 count=1 2>/dev/null", "dd", TTYRaw, "read"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			task := startOnPTY(t, tc.script)
			s := New(os.Getpid(), task.master)
			// The terminal's mode and the processes are read one after the
			// other, so one sample can see stty's change still to come and
			// bash already reading; a few samples later both agree.
			tree := waitFor(t, s, "a process reading the tty in "+string(tc.mode)+" mode", func(tr Tree) bool { return tr.ReadingTTY && tr.TTYMode == tc.mode })
			if tree.TTYMode != tc.mode {
				t.Errorf("TTYMode = %q, want %q\n%s", tree.TTYMode, tc.mode, dump(tree))
			}
			if tree.ReadingTTYComm != tc.reader || tree.ReadingTTYBy != "syscall" {
				t.Errorf("reader = %s by %s, want %s by syscall\n%s", tree.ReadingTTYComm, tree.ReadingTTYBy, tc.reader, dump(tree))
			}
			if tree.ForegroundPGID != task.pid() {
				t.Errorf("ForegroundPGID = %d, want bash's %d", tree.ForegroundPGID, task.pid())
			}
			reader, ok := findProc(tree, byPID(tree.ReadingTTYPID))
			if !ok {
				t.Fatalf("reader %d not among the procs\n%s", tree.ReadingTTYPID, dump(tree))
			}
			pts := slavePath(t, task.master)
			if reader.SyscallName != tc.syscall || reader.ReadFd != pts || reader.Fd0 != pts || reader.SyscallArg0 != 0 {
				t.Errorf("reader blocked in %s(%d) on %q with fd0 %q, want %s(0) on %s",
					reader.SyscallName, reader.SyscallArg0, reader.ReadFd, reader.Fd0, tc.syscall, pts)
			}
			if !tree.Complete {
				t.Errorf("sample of our own processes is incomplete\n%s", dump(tree))
			}
		})
	}
}

// Readers that wait in poll, select or epoll before reading (editors, REPLs)
// must be recognised from the fd sets in their memory or fdinfo.
func TestReadingTTYThroughMultiplexers(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	cases := map[string]string{
		"select": "import select,sys; select.select([sys.stdin], [], [])",
		"poll":   "import select,sys; p = select.poll(); p.register(sys.stdin, select.POLLIN); p.poll()",
		"epoll":  "import select,sys; e = select.epoll(); e.register(sys.stdin.fileno(), select.EPOLLIN); e.poll()",
	}
	for name, program := range cases {
		t.Run(name, func(t *testing.T) {
			task := startOnPTY(t, "exec python3 -c '"+program+"'")
			s := New(os.Getpid(), task.master)
			tree := waitFor(t, s, "python waiting on the tty", func(tr Tree) bool { return tr.ReadingTTY })
			reader, _ := findProc(tree, byPID(tree.ReadingTTYPID))
			if !strings.Contains(reader.SyscallName, name) && !(name == "select" && reader.SyscallName == "pselect6") {
				t.Errorf("reader blocked in %q, want a %s call\n%s", reader.SyscallName, name, dump(tree))
			}
			if pts := slavePath(t, task.master); reader.ReadFd != pts {
				t.Errorf("ReadFd = %q, want %s", reader.ReadFd, pts)
			}
		})
	}
}

func TestWithoutMasterTheTerminalComesFromStat(t *testing.T) {
	task := startOnPTY(t, "read answer")
	s := New(os.Getpid(), nil)
	tree := waitFor(t, s, "a process reading the tty", func(tr Tree) bool { return tr.ReadingTTY })
	if tree.ReadingTTYPID != task.pid() || tree.ForegroundPGID != task.pid() {
		t.Errorf("reader %d, foreground %d; want bash %d for both", tree.ReadingTTYPID, tree.ForegroundPGID, task.pid())
	}
	if tree.TTYMode != TTYUnknown {
		t.Errorf("TTYMode = %q without a master, want unknown", tree.TTYMode)
	}
}

func TestSleepIsTimerSleepNotReading(t *testing.T) {
	task := startOnPTY(t, "sleep 30")
	s := New(os.Getpid(), task.master)
	tree := waitFor(t, s, "sleep in its timer", func(tr Tree) bool { return tr.TimerSleep })
	if tree.ReadingTTY || tree.AnyRunning {
		t.Errorf("sleep counted as reading=%v running=%v\n%s", tree.ReadingTTY, tree.AnyRunning, dump(tree))
	}
	p, ok := findProc(tree, byPID(task.pid()))
	if !ok || p.Cmdline != "sleep 30" || p.Comm != "sleep" || p.State != 'S' {
		t.Errorf("sleep process not reported as it is\n%s", dump(tree))
	}
}

// schedRuntime is the kernel's nanosecond count of the time pid ran, an
// independent check of the tick counts the sampler reads from stat.
func schedRuntime(t *testing.T, pid int) time.Duration {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/schedstat", pid))
	if err != nil {
		t.Skipf("no schedstat to check against: %v", err)
	}
	ns, err := strconv.ParseInt(strings.Fields(string(b))[0], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return time.Duration(ns)
}

// Other work on the machine decides how much CPU the loop gets, so the
// sample is checked against the kernel's own runtime count for the window.
func TestBusyLoopCPUMatchesTheKernel(t *testing.T) {
	task := startOnPTY(t, "while :; do :; done")
	s := New(os.Getpid(), task.master)
	waitFor(t, s, "the loop", func(tr Tree) bool { _, ok := findProc(tr, byPID(task.pid())); return ok })
	ran0, wall0 := schedRuntime(t, task.pid()), time.Now()
	time.Sleep(300 * time.Millisecond)
	tree, err := s.Sample()
	if err != nil {
		t.Fatal(err)
	}
	ran, wall := schedRuntime(t, task.pid())-ran0, time.Since(wall0)
	truth := ran.Seconds() / wall.Seconds() * 100
	p, _ := findProc(tree, byPID(task.pid()))
	t.Logf("loop: sampled %.1f%% (tree %.1f%%), kernel says %.1f%%", p.CPUPercent, tree.CPUPercent, truth)
	if diff := p.CPUPercent - truth; diff > 15 || diff < -15 || tree.CPUPercent < p.CPUPercent {
		t.Errorf("loop CPU %.1f%% (tree %.1f%%), kernel runtime says %.1f%%\n%s", p.CPUPercent, tree.CPUPercent, truth, dump(tree))
	}
	if !tree.AnyRunning || p.State != 'R' || p.New {
		t.Errorf("busy loop not seen running (state %c, new %v)\n%s", p.State, p.New, dump(tree))
	}
}

// Children that live and die between two samples are seen only through
// their parent's cutime. Summed over the windows, the tree's CPU must add up
// to what wait4 reports for the whole tree, counting no child twice.
func TestShortLivedChildrenCPUAddsUp(t *testing.T) {
	s := New(os.Getpid(), nil)
	task := startOnPTY(t, `for n in $(seq 12); do sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done'; done; read done`)
	var sampled time.Duration
	waitFor(t, s, "the loop done", func(tr Tree) bool {
		sampled += time.Duration(tr.CPUPercent / 100 * float64(tr.Window))
		return tr.ReadingTTY
	})
	if _, err := task.master.Write([]byte("\n")); err != nil {
		t.Fatal(err)
	}
	if err := task.cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	ru := task.cmd.ProcessState.SysUsage().(*syscall.Rusage)
	truth := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	t.Logf("sampled %v of CPU, wait4 says %v", sampled, truth)
	if d := sampled - truth; d > truth/5+20*time.Millisecond || d < -truth/5-20*time.Millisecond {
		t.Errorf("sampled windows add up to %v of CPU, wait4 says the tree used %v", sampled, truth)
	}
}

func TestWritingAFileCountsWriteBytes(t *testing.T) {
	file := filepath.Join(t.TempDir(), "zeros")
	task := startOnPTY(t, "while :; do dd if=/dev/zero of="+file+" bs=1M count=4 2>/dev/null; done")
	s := New(os.Getpid(), task.master)
	var fs unix.Statfs_t
	if err := unix.Statfs(filepath.Dir(file), &fs); err != nil {
		t.Fatal(err)
	}
	onDisk := fs.Type != unix.TMPFS_MAGIC && fs.Type != unix.RAMFS_MAGIC
	if !onDisk {
		t.Logf("%s is in memory: write_bytes stays 0 there, only WChar checked", file)
	}
	var wchar, written int64
	waitFor(t, s, "two dd runs written", func(tr Tree) bool {
		wchar, written = wchar+tr.WChar, written+tr.WriteBytes
		return wchar >= 8<<20 && (written > 0 || !onDisk)
	})
}

// When a parent reaps a child the kernel adds the child's whole I/O to the
// parent; the part already counted must not be counted again.
func TestReapedChildIsNotCountedTwice(t *testing.T) {
	task := startOnPTY(t, `bash -c 'head -c 50000000 /dev/zero >/dev/null; read inner'; read outer`)
	s := New(os.Getpid(), task.master)
	tree := waitFor(t, s, "the inner bash reading", func(tr Tree) bool {
		return tr.ReadingTTY && tr.ReadingTTYPID != task.pid()
	})
	inner, _ := findProc(tree, byPID(tree.ReadingTTYPID))
	if _, err := task.master.Write([]byte("go on\n")); err != nil {
		t.Fatal(err)
	}
	var outerChars, treeChars int64
	tree = waitFor(t, s, "the outer bash reading", func(tr Tree) bool {
		treeChars += tr.RChar + tr.WChar
		if p, ok := findProc(tr, byPID(task.pid())); ok {
			outerChars += p.RChar + p.WChar
		}
		return tr.ReadingTTY && tr.ReadingTTYPID == task.pid()
	})
	if _, still := findProc(tree, byPID(inner.PID)); still {
		t.Fatalf("inner bash %d still there\n%s", inner.PID, dump(tree))
	}
	if outerChars > 1<<20 || treeChars > 1<<20 {
		t.Errorf("after reaping a child that moved 100 MB earlier: outer bash %d chars, tree %d chars; want < 1 MiB",
			outerChars, treeChars)
	}
}

func TestListenerIsListed(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	task := startOnPTY(t, "exec python3 -u -m http.server 0 --bind 127.0.0.1")
	s := New(os.Getpid(), task.master)
	portRe := regexp.MustCompile(`port (\d+)`)
	// Waiting on its socket is part of the condition: a sample taken while
	// the server still starts (paging in, state D) sees no read yet.
	tree := waitFor(t, s, "the server listening, saying its port and waiting on its socket", func(tr Tree) bool {
		server, _ := findProc(tr, byPID(task.pid()))
		return len(tr.Listening) > 0 && portRe.MatchString(task.out.String()) && strings.HasPrefix(server.ReadFd, "socket:[")
	})
	port := portRe.FindStringSubmatch(task.out.String())[1]
	want := Socket{State: "LISTEN", Local: "127.0.0.1:" + port, Remote: "0.0.0.0:0"}
	if len(tree.Listening) != 1 || tree.Listening[0] != want {
		t.Errorf("Listening = %+v, want [%+v]", tree.Listening, want)
	}
	server, _ := findProc(tree, byPID(task.pid()))
	if len(server.Sockets) != 1 || server.Sockets[0] != want {
		t.Errorf("server sockets = %+v, want [%+v]", server.Sockets, want)
	}
	if !strings.HasPrefix(server.ReadFd, "socket:[") || tree.ReadingTTY {
		t.Errorf("server waits on %q (reading tty %v), want its socket\n%s", server.ReadFd, tree.ReadingTTY, dump(tree))
	}
}

func TestConnectionsAreListedByState(t *testing.T) {
	// A listen backlog of 0 takes one connection into the accept queue and
	// drops the SYN of the next, which stays in SYN_SENT.
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if err := unix.Bind(fd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := unix.Listen(fd, 0); err != nil {
		t.Fatal(err)
	}
	sa, err := unix.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	port := sa.(*unix.SockaddrInet4).Port
	addr := fmt.Sprintf("127.0.0.1:%d", port)

	task := startOnPTY(t, fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d; exec 4<>/dev/tcp/127.0.0.1/%d", port, port))
	s := New(os.Getpid(), task.master)
	tree := waitFor(t, s, "one established and one connecting socket", func(tr Tree) bool {
		return len(tr.Established) == 1 && len(tr.Connecting) == 1
	})
	if tree.Established[0].Remote != addr || tree.Connecting[0].Remote != addr || tree.Connecting[0].State != "SYN_SENT" {
		t.Errorf("established %+v, connecting %+v; want both to %s", tree.Established, tree.Connecting, addr)
	}
	if len(tree.Listening) != 0 {
		t.Errorf("the root's listener leaked into the tree: %+v", tree.Listening)
	}
	bash, _ := findProc(tree, byPID(task.pid()))
	if bash.SyscallName != "connect" {
		t.Errorf("bash blocked in %q, want connect\n%s", bash.SyscallName, dump(tree))
	}
}

func TestReadingASocketIsNotReadingTheTTY(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			accepted <- c
		}
		close(accepted)
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	task := startOnPTY(t, fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d; read -u 3 line", port))
	defer func() {
		if c, ok := <-accepted; ok {
			c.Close()
		}
	}()
	s := New(os.Getpid(), task.master)
	tree := waitFor(t, s, "bash blocked on its socket", func(tr Tree) bool {
		p, ok := findProc(tr, byPID(task.pid()))
		return ok && p.SyscallName == "read" && len(tr.Established) == 1
	})
	bash, _ := findProc(tree, byPID(task.pid()))
	if tree.ReadingTTY || !strings.HasPrefix(bash.ReadFd, "socket:[") || bash.SyscallArg0 != 3 {
		t.Errorf("reading tty %v, ReadFd %q, arg0 %d; want a read of socket fd 3\n%s",
			tree.ReadingTTY, bash.ReadFd, bash.SyscallArg0, dump(tree))
	}
	if tree.Established[0].Remote != ln.Addr().String() {
		t.Errorf("established %+v, want remote %s", tree.Established, ln.Addr())
	}
}

func TestDoubleForkedGrandchildOfSubreaperIsFound(t *testing.T) {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		t.Fatalf("become subreaper: %v", err)
	}
	t.Cleanup(func() { _ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0) })
	out, err := exec.Command("bash", "-c", "(sleep 301 >/dev/null 2>&1 & echo $!)").Output()
	if err != nil {
		t.Fatal(err)
	}
	orphan, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("parse pid from %q: %v", out, err)
	}
	t.Cleanup(func() {
		_ = unix.Kill(orphan, unix.SIGKILL)
		var ws unix.WaitStatus
		_, _ = unix.Wait4(orphan, &ws, 0, nil)
	})
	tree := waitFor(t, New(os.Getpid(), nil), "the orphan after its exec", func(tr Tree) bool {
		p, ok := findProc(tr, byPID(orphan))
		return !ok || p.Cmdline == "sleep 301"
	})
	p, ok := findProc(tree, byPID(orphan))
	if !ok || p.PPID != os.Getpid() {
		t.Errorf("orphan %d (reparented to us) not found as our child\n%s", orphan, dump(tree))
	}
}

func TestUnrelatedProcessesAreNeverIncluded(t *testing.T) {
	root := startPlain(t, "bash", "-c", "sleep 302 & wait")
	sibling := startPlain(t, "sleep", "303")
	s := New(root.Process.Pid, nil)
	tree := waitFor(t, s, "the root's child", func(tr Tree) bool { _, ok := findProc(tr, byCmdline("sleep 302")); return ok })
	if len(tree.Procs) != 1 {
		t.Errorf("want only sleep 302 under the root\n%s", dump(tree))
	}
	for _, p := range tree.Procs {
		if p.PID == root.Process.Pid || p.PID == sibling.Process.Pid || p.PID == os.Getpid() {
			t.Errorf("included %d %q, which is not a descendant of the root", p.PID, p.Cmdline)
		}
	}

	// An orphan reparented away from us (we are not a subreaper here).
	cmd := exec.Command("bash", "-c", "(sleep 304 >/dev/null 2>&1 & echo $!)")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	orphan, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	t.Cleanup(func() { _ = unix.Kill(orphan, unix.SIGKILL) })
	mine, err := New(os.Getpid(), nil).Sample()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := findProc(mine, byPID(orphan)); ok || orphan == 0 {
		t.Errorf("orphan %d adopted by another process is in our tree\n%s", orphan, dump(mine))
	}
	if _, ok := findProc(mine, byPID(sibling.Process.Pid)); !ok {
		t.Errorf("our own child %d is missing\n%s", sibling.Process.Pid, dump(mine))
	}
}

func TestZombiesAreLeftOut(t *testing.T) {
	// After exec, sleep never waits for the child bash started: it stays a zombie.
	task := startOnPTY(t, "sleep 0.01 & exec sleep 305")
	s := New(os.Getpid(), task.master)
	tree := waitFor(t, s, "sleep 305 with its child gone", func(tr Tree) bool {
		p, ok := findProc(tr, byPID(task.pid()))
		return ok && p.Cmdline == "sleep 305" && len(tr.Procs) == 1 && zombieChild(task.pid())
	})
	if p := tree.Procs[0]; p.Children != 0 || !tree.Complete {
		t.Errorf("zombie counted: children %d, complete %v\n%s", p.Children, tree.Complete, dump(tree))
	}
}

func zombieChild(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	if err != nil {
		return false
	}
	for _, c := range strings.Fields(string(b)) {
		stat, err := os.ReadFile("/proc/" + c + "/stat")
		if err == nil && strings.Contains(string(stat), ") Z ") {
			return true
		}
	}
	return false
}

func TestNewMarksOnlyFreshProcesses(t *testing.T) {
	task := startOnPTY(t, "sleep 306 & read go; sleep 307; exit")
	s := New(os.Getpid(), task.master)
	if first, err := s.Sample(); err != nil || !first.First {
		t.Fatalf("the first sample: First = %v (%v), want true", first.First, err)
	}
	before := waitFor(t, s, "bash reading beside sleep 306", func(tr Tree) bool {
		_, ok := findProc(tr, byCmdline("sleep 306"))
		return tr.ReadingTTY && ok
	})
	old, ok := findProc(before, byCmdline("sleep 306"))
	if !ok {
		t.Fatalf("sleep 306 missing\n%s", dump(before))
	}
	if _, err := task.master.Write([]byte("\n")); err != nil {
		t.Fatal(err)
	}
	// The first sample that shows bash with two children is the first one
	// that shows its second child.
	tree := waitFor(t, s, "bash's second child", func(tr Tree) bool {
		bash, _ := findProc(tr, byPID(task.pid()))
		return bash.Children == 2
	})
	if tree.First {
		t.Errorf("a later sample is marked First")
	}
	for _, p := range tree.Procs {
		fresh := p.PPID == task.pid() && p.PID != old.PID
		if p.New != fresh {
			t.Errorf("%d %q: New = %v, want %v\n%s", p.PID, p.Cmdline, p.New, fresh, dump(tree))
		}
	}
}

func TestRootGoneIsAnError(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	_, err := New(cmd.Process.Pid, nil).Sample()
	if err == nil || !strings.Contains(err.Error(), strconv.Itoa(cmd.Process.Pid)) {
		t.Errorf("Sample of a dead root: err = %v, want one naming PID %d", err, cmd.Process.Pid)
	}
}

func TestParseStatWithHostileComm(t *testing.T) {
	line := "4242 (a) (b) R 1 ) S 9 4242 4242 34816 4242 4194560 10 0 0 0 7 3 5 2 20 0 3 0 123456 0 0\n"
	st, err := parseStat([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	if string(st.comm) != "a) (b) R 1 " || st.state != 'S' || st.ppid != 9 || st.pgrp != 4242 ||
		st.utime != 7 || st.stime != 3 || st.cutime != 5 || st.cstime != 2 || st.threads != 3 || st.start != 123456 {
		t.Errorf("parsed %+v", st)
	}
}

func TestParseTCPAddr(t *testing.T) {
	cases := map[string]string{
		"0100007F:1F90":                         "127.0.0.1:8080",
		"00000000:0016":                         "0.0.0.0:22",
		"00000000000000000000000001000000:1F90": "[::1]:8080",
		"0000000000000000FFFF00000100007F:0050": "[::ffff:127.0.0.1]:80",
	}
	for in, want := range cases {
		if got, ok := parseTCPAddr([]byte(in)); !ok || got != want {
			t.Errorf("parseTCPAddr(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "0100007F", "0100007:1F90", "0100007F:12345"} {
		if got, ok := parseTCPAddr([]byte(bad)); ok {
			t.Errorf("parseTCPAddr(%q) = %q, want rejected", bad, got)
		}
	}
}

// What a sleeping process shows is reused while it has not run; once it
// runs, its new fds must show up even though it sleeps in the same read.
func TestChangesAfterTheProcessRanAreSeen(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	task := startOnPTY(t, fmt.Sprintf("read first; exec 3<>/dev/tcp/127.0.0.1/%d; read second", port))
	s := New(os.Getpid(), task.master)
	for i := 0; i < 3; i++ { // the third sample of an idle bash reuses the second's reads
		tree := waitFor(t, s, "bash reading", func(tr Tree) bool { return tr.ReadingTTY })
		if len(tree.Established) != 0 {
			t.Fatalf("connected before the first line\n%s", dump(tree))
		}
	}
	if _, err := task.master.Write([]byte("\n")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, s, "bash reading again, now holding a connection", func(tr Tree) bool {
		return tr.ReadingTTY && len(tr.Established) == 1
	})
}
