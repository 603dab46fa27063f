//go:build linux

package sampler

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"
)

func needPython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is needed to make these waits")
	}
}

// Every way a runtime sleeps with a deadline is a timer, on whichever
// thread it happens; every way of waiting without one is not.
func TestTimedWaitsOnAnyThreadAreTimers(t *testing.T) {
	needPython(t)
	cases := []struct {
		name, script string
		timer        bool
		syscall      string        // the timed call expected among Timers
		timeout      time.Duration // expected, 0 when not checked
	}{
		{"epoll_wait with a timeout on a worker thread",
			`python3 -c 'import select, threading; t = threading.Thread(target=lambda: select.epoll().poll(30)); t.start(); t.join()'`,
			true, "epoll_wait", 30 * time.Second},
		{"clock_nanosleep on a worker thread, main joining",
			`python3 -c 'import threading, time; t = threading.Thread(target=time.sleep, args=(30,)); t.start(); t.join()'`,
			true, "clock_nanosleep", 30 * time.Second},
		{"futex wait with a deadline",
			`python3 -c 'import threading; threading.Event().wait(30)'`, true, "futex", 0},
		{"select with only a timeout (glibc makes it pselect6)",
			`python3 -c 'import select; select.select([], [], [], 30)'`, true, "pselect6", 30 * time.Second},
		{"poll with a timeout",
			`python3 -c 'import select; select.poll().poll(30000)'`, true, "poll", 30 * time.Second},
		{"epoll_wait with no timeout", `python3 -c 'import select; select.epoll().poll()'`, false, "", 0},
		{"futex wait with no deadline", `python3 -c 'import threading; threading.Event().wait()'`, false, "", 0},
		{"two threads waiting forever",
			`python3 -c 'import threading; l = threading.Lock(); l.acquire(); threading.Thread(target=l.acquire).start()'`, false, "", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			task := startPlain(t, "bash", "-c", tc.script)
			s := New(os.Getpid(), nil)
			// Settled: the python process exists and all its threads sleep.
			tree := waitFor(t, s, "python settled in its wait", func(tr Tree) bool {
				p, ok := findProc(tr, func(p Proc) bool { return p.Comm == "python3" })
				return ok && p.State == 'S' && p.Syscall >= 0 && (!tc.timer || tr.TimerSleep)
			})
			time.Sleep(100 * time.Millisecond)
			tree, err := s.Sample()
			if err != nil {
				t.Fatal(err)
			}
			_ = task
			if tree.TimerSleep != tc.timer {
				t.Fatalf("TimerSleep = %v, want %v; timers %+v\n%s", tree.TimerSleep, tc.timer, tree.Timers, dump(tree))
			}
			if !tc.timer {
				return
			}
			found := false
			for _, tm := range tree.Timers {
				if tm.Syscall == tc.syscall {
					found = true
					// An absolute deadline reads as what is left of it.
					if tc.timeout > 0 && !near(tm.Timeout, tc.timeout) {
						t.Errorf("%s timeout = %v, want about %v", tm.Syscall, tm.Timeout, tc.timeout)
					}
					if tm.Comm != "python3" || tm.PID == 0 || tm.TID == 0 {
						t.Errorf("timer not named: %+v", tm)
					}
				}
			}
			if !found {
				t.Errorf("no %s among the timers %+v", tc.syscall, tree.Timers)
			}
		})
	}
}

// `read -t` waits in a call with a timeout: the read on the terminal is
// bounded, and its timeout is known. A plain read is not.
func TestTimedReadOnTheTerminal(t *testing.T) {
	for _, tc := range []struct {
		script  string
		timed   bool
		timeout time.Duration
	}{
		{"read -t 25 answer", true, 25 * time.Second},
		{"read answer", false, 0},
	} {
		task := startOnPTY(t, tc.script)
		s := New(os.Getpid(), task.master)
		tree := waitFor(t, s, "bash reading the tty", func(tr Tree) bool { return tr.ReadingTTY })
		if tree.ReadingTTYTimed != tc.timed || !near(tree.ReadingTTYTimeout, tc.timeout) || tree.Forwarding {
			t.Errorf("%q: timed=%v timeout=%v forwarding=%v, want %v %v false (call %s)", tc.script,
				tree.ReadingTTYTimed, tree.ReadingTTYTimeout, tree.Forwarding, tc.timed, tc.timeout, tree.ReadingTTYSyscall)
		}
	}
}

// A program that waits on the terminal and a connection in the same call
// forwards the terminal (ssh, telnet, nc); it is not waiting for a person.
func TestForwarderWaitsOnTerminalAndSocket(t *testing.T) {
	needPython(t)
	script := `python3 -c '
import select, socket
srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen()
c = socket.create_connection(srv.getsockname()); peer, _ = srv.accept()
select.select([0, c], [], [])'`
	task := startOnPTY(t, script)
	s := New(os.Getpid(), task.master)
	tree := waitFor(t, s, "python reading the tty", func(tr Tree) bool { return tr.ReadingTTY })
	if !tree.Forwarding {
		t.Errorf("a select on the terminal and a socket is not a forwarder\n%s", dump(tree))
	}
	if tree.ReadingTTYSyscall != "select" && tree.ReadingTTYSyscall != "pselect6" {
		t.Errorf("reading call = %q, want select", tree.ReadingTTYSyscall)
	}
}

// near: within the second before want (time passed since the call began,
// or bash's own rounding of read -t).
func near(got, want time.Duration) bool { return got <= want && got > want-time.Second }

// An epoll_wait with no timeout on an armed timerfd wakes at a set time (how
// systemd and libevent wait); on a disarmed one it does not.
func TestWaitOnATimerfdIsATimer(t *testing.T) {
	needPython(t)
	for _, tc := range []struct {
		secs  int
		timer bool
	}{{30, true}, {0, false}} {
		t.Run(fmt.Sprintf("armed for %d s", tc.secs), func(t *testing.T) {
			script := fmt.Sprintf(`python3 -c '
import ctypes, select
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.timerfd_create(1, 0)
spec = (ctypes.c_long * 4)(0, 0, %d, 0)
libc.timerfd_settime(fd, 0, spec, None)
ep = select.epoll(); ep.register(fd, select.EPOLLIN); ep.poll()'`, tc.secs)
			startPlain(t, "bash", "-c", script)
			s := New(os.Getpid(), nil)
			tree := waitFor(t, s, "python waiting in epoll_wait", func(tr Tree) bool {
				p, ok := findProc(tr, func(p Proc) bool { return p.Comm == "python3" })
				return ok && p.State == 'S' && p.SyscallName == "epoll_wait"
			})
			if tree.TimerSleep != tc.timer {
				t.Errorf("TimerSleep = %v, want %v; timers %+v\n%s", tree.TimerSleep, tc.timer, tree.Timers, dump(tree))
			}
			if tc.timer && (len(tree.Timers) == 0 || !near(tree.Timers[0].Timeout, 30*time.Second)) {
				t.Errorf("timerfd's time left not read: %+v", tree.Timers)
			}
		})
	}
}
