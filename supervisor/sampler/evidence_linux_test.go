//go:build linux

package sampler

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// silentPeer is a listener on 127.0.0.1 that accepts one connection, reads
// the request line and answers with answer ("" for never). Everything it
// does is bounded by ctx and ends at cleanup, so a client that never comes
// or a read that never ends cannot hold the test.
func silentPeer(t *testing.T, answer string) (port int, gotRequest <-chan string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	requests := make(chan string, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		deadline, _ := ctx.Deadline()
		_ = ln.(*net.TCPListener).SetDeadline(deadline)
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		_ = c.SetDeadline(deadline)
		line, err := bufio.NewReader(c).ReadString('\n')
		if err != nil {
			return
		}
		requests <- strings.TrimSpace(line)
		if answer != "" {
			if _, err := c.Write([]byte(answer)); err != nil {
				return
			}
		}
		<-ctx.Done() // hold the connection open, saying nothing more
	}()
	t.Cleanup(func() {
		cancel()
		_ = ln.Close()
		<-done
	})
	return ln.Addr().(*net.TCPAddr).Port, requests
}

// A request sent and nothing received is a silent peer; the sampler reads
// how long from tcp_info through sock_diag. A peer that answered owes
// nothing, whatever the client waits for next.
func TestSilentPeerIsTimedThroughSockDiag(t *testing.T) {
	for _, tc := range []struct {
		name, answer string
		silent       bool
	}{
		{"no answer", "", true},
		{"answered", "200 OK\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			port, requests := silentPeer(t, tc.answer)
			// bash sends one request line and reads the socket for two
			// lines: the second never comes, so it waits either way.
			task := startOnPTY(t, fmt.Sprintf(
				"exec 3<>/dev/tcp/127.0.0.1/%d; printf 'GET /\\n' >&3; read -u 3 a; read -u 3 b", port))
			select {
			case req := <-requests:
				if req != "GET /" {
					t.Fatalf("the peer got %q, want GET /", req)
				}
			case <-time.After(20 * time.Second):
				t.Fatalf("the peer never got the request; the client says %q", task.out.String())
			}
			s := New(os.Getpid(), task.master)
			// Once the client blocks in its read, the silence can only grow:
			// wait until it is longer than anything the handshake or the
			// request could explain.
			const quiet = 400 * time.Millisecond
			blocked := func(tr Tree) bool {
				p, ok := findProc(tr, byPID(task.pid()))
				return ok && p.SyscallName == "read" && strings.HasPrefix(p.ReadFd, "socket:[") && len(tr.Established) == 1
			}
			tree := waitFor(t, s, "bash blocked reading its socket", blocked)
			time.Sleep(quiet)
			tree = waitFor(t, s, "bash still blocked reading its socket", blocked)
			if tc.silent && tree.PeerSilent < quiet {
				t.Errorf("no answer %v after the request: PeerSilent = %v, want at least %v\n%s",
					quiet, tree.PeerSilent, quiet, dump(tree))
			}
			if !tc.silent && tree.PeerSilent != 0 {
				t.Errorf("the peer answered the request: PeerSilent = %v, want 0\n%s", tree.PeerSilent, dump(tree))
			}
			if tree.ReadingTTY {
				t.Errorf("a read of a socket taken for a read of the terminal\n%s", dump(tree))
			}
		})
	}
}

// A process started in a session of its own (setsid) and reading the
// task's terminal waits for input as much as the foreground shell would.
func TestReaderInAnotherSessionIsReadingTTY(t *testing.T) {
	// bash forks setsid (it is the last command only when nothing
	// follows), so setsid is no group leader and makes its session
	// without forking again: the reader stays in the tree.
	task := startOnPTY(t, "setsid bash -c 'read x'; echo after")
	s := New(os.Getpid(), task.master)
	tree := waitFor(t, s, "a process reading the tty", func(tr Tree) bool { return tr.ReadingTTY })
	reader, ok := findProc(tree, byPID(tree.ReadingTTYPID))
	if !ok {
		t.Fatalf("reader %d not among the procs\n%s", tree.ReadingTTYPID, dump(tree))
	}
	if reader.PID == task.pid() || reader.SID == task.pid() || reader.PGID == tree.ForegroundPGID {
		t.Errorf("reader %d (session %d, group %d): want the setsid'd bash, outside session %d and foreground group %d\n%s",
			reader.PID, reader.SID, reader.PGID, task.pid(), tree.ForegroundPGID, dump(tree))
	}
	if reader.Cmdline != "bash -c read x" || tree.ReadingTTYBy != "syscall" || tree.Forwarding {
		t.Errorf("reader %q by %q (forwarding %v), want bash -c read x by syscall\n%s",
			reader.Cmdline, tree.ReadingTTYBy, tree.Forwarding, dump(tree))
	}
	if pts := slavePath(t, task.master); reader.ReadFd != pts {
		t.Errorf("reader waits on %q, want the task's terminal %s", reader.ReadFd, pts)
	}
}

// script forwards a terminal inside the task's terminal: it waits on the
// outer terminal and its PTY master in one call. The program inside is the
// one waiting, with the inner terminal's mode; script's read of the outer
// one is only passing keys on.
func TestProgramInsideNestedTerminalIsTheReader(t *testing.T) {
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("script (util-linux) not installed")
	}
	for _, tc := range []struct {
		name, inner string
		mode        TTYMode
	}{
		{"line", "read x", TTYLine},
		{"secret", "stty -echo; read x", TTYSecret},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// script sets the outer terminal raw; the inner mode is what
			// the program asked for.
			task := startOnPTY(t, fmt.Sprintf("SHELL=/bin/bash exec script -qc '%s' /dev/null", tc.inner))
			s := New(os.Getpid(), task.master)
			outer := slavePath(t, task.master)
			tree := waitFor(t, s, "the inner shell reading its terminal in "+string(tc.mode)+" mode", func(tr Tree) bool {
				return tr.ReadingTTY && tr.ReadingTTYPID != task.pid() && tr.TTYMode == tc.mode
			})
			script, ok := findProc(tree, byPID(task.pid()))
			if !ok || script.Comm != "script" {
				t.Fatalf("script %d not in the tree\n%s", task.pid(), dump(tree))
			}
			reader, _ := findProc(tree, byPID(tree.ReadingTTYPID))
			if reader.PPID != script.PID || reader.Comm != "bash" {
				t.Errorf("reader %d %q (parent %d), want the bash script runs\n%s",
					reader.PID, reader.Comm, reader.PPID, dump(tree))
			}
			if !strings.HasPrefix(reader.ReadFd, "/dev/pts/") || reader.ReadFd == outer {
				t.Errorf("reader waits on %q, want the inner terminal (not the task's %s)\n%s", reader.ReadFd, outer, dump(tree))
			}
			if tree.Forwarding || tree.ReadingTTYBy != "syscall" {
				t.Errorf("forwarding %v by %q: the program inside is no forwarder\n%s", tree.Forwarding, tree.ReadingTTYBy, dump(tree))
			}
			// The forwarder itself: on the outer terminal and its master,
			// so the test shows what was set aside.
			if script.ReadFd != outer {
				t.Errorf("script waits on %q, want the task's terminal %s first\n%s", script.ReadFd, outer, dump(tree))
			}
		})
	}
}

// tcp_info's times are in jiffies: a tie is a request and its answer in one
// tick (a peer on this machine) unless nothing was ever received.
func TestOwesAnswerOnATie(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		q    tcpQuiet
		owes bool
	}{
		{tcpQuiet{lastRecv: 900 * ms, lastSent: 500 * ms}, true},
		{tcpQuiet{lastRecv: 500 * ms, lastSent: 900 * ms}, false},
		{tcpQuiet{lastRecv: 700 * ms, lastSent: 700 * ms}, false},
		{tcpQuiet{lastRecv: 700 * ms, lastSent: 700 * ms, neverHeard: true}, true},
	} {
		if got := tc.q.owesAnswer(); got != tc.owes {
			t.Errorf("%+v: owesAnswer = %v, want %v", tc.q, got, tc.owes)
		}
	}
}
