//go:build linux

package supervisor

import (
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hangdog/hangdog/supervisor/proto"
	"github.com/hangdog/hangdog/supervisor/sampler"
)

// keepLeftOver keeps the task alive while processes its command started
// still run after it exited (`server &`): the caller is told at once what
// the command exited with and what it left, the run moves to the
// background, and this returns once the tree is empty or a kill of it has
// finished. The task's result is then the command's own status. It does
// nothing when the command left nothing, or a kill is already ending the
// task. It returns when the output drain should start counting from.
func (s *supervisor) keepLeftOver(status unix.WaitStatus, exitAt time.Time) time.Time {
	if len(descendants(s.self)) == 0 || s.killing() {
		return exitAt
	}
	// The output the command wrote before it exited belongs to what the
	// caller is told; the reader keeps running, as the left-over processes
	// may still write.
	s.waitQuiet(exitAt)
	left := leftProcs(s.self)
	if len(left) == 0 {
		return exitAt
	}
	code := exitCodeOf(status)
	d := proto.Detach{ExitCode: &code, LeftRunning: left, Reason: leftReason(code, left)}
	for _, p := range left {
		if len(p.Listening) > 0 {
			d.Wait = "service"
			break
		}
	}
	// A background task is already nobody's to tell; it simply stays.
	s.toBackground(d)
	// Woken only by a reaped child, not by a timer: a server left running
	// for hours must cost nothing. The last process of the tree to end is
	// always a child of the supervisor by then (the subreaper), so its end
	// is seen here; a kill ends the tree the same way.
	for len(descendants(s.self)) > 0 {
		<-s.reaped
	}
	return time.Now()
}

func (s *supervisor) killing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.killDone != nil
}

// waitQuiet waits, at most drainMax after exitAt, for the output to be
// quiet for drainQuiet, without stopping the reader.
func (s *supervisor) waitQuiet(exitAt time.Time) {
	deadline := exitAt.Add(drainMax)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for now := range tick.C {
		last := time.Unix(0, s.lastRead.Load())
		if last.Before(exitAt) {
			last = exitAt
		}
		if now.Sub(last) >= drainQuiet || now.After(deadline) {
			return
		}
	}
}

// leftProcs lists the live processes of the tree with what they listen on.
func leftProcs(root int) []proto.LeftProc {
	tree, err := sampler.New(root, nil).Sample()
	if err != nil {
		fmt.Fprintln(os.Stderr, "hangdog supervisor: list the processes left running:", err)
		return nil
	}
	var out []proto.LeftProc
	for _, p := range tree.Procs {
		lp := proto.LeftProc{PID: p.PID, Argv: p.Argv}
		if len(lp.Argv) == 0 {
			lp.Argv = []string{p.Comm}
		}
		for _, sk := range p.Sockets {
			if sk.State == "LISTEN" {
				lp.Listening = append(lp.Listening, sk.Local)
			}
		}
		out = append(out, lp)
	}
	return out
}

func exitCodeOf(ws unix.WaitStatus) int {
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}

// leftReason is the detach's reason: "command exited 0; left running: pid
// 123 python3 -m http.server (listening on 127.0.0.1:8000)".
func leftReason(code int, left []proto.LeftProc) string {
	return fmt.Sprintf("command exited %d; left running: %s", code, proto.DescribeLeft(left))
}
