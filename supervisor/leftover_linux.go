//go:build linux

package supervisor

import (
	"fmt"
	"os"
	"slices"
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
	// Asked of the kernel first, not through descendants: a command that
	// left nothing is the common case, and see anyChild for why.
	if !anyChild() || len(descendants(s.self)) == 0 || s.killing() {
		return exitAt
	}
	// The output the command wrote before it exited belongs to what the
	// caller is told; the reader keeps running, as the left-over processes
	// may still write.
	s.waitQuiet(exitAt)
	left := settledLeftProcs(s.self)
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

// What a command left is told once it holds still. A process caught on its
// way to the program it will be is not yet what was left: a version
// manager's shim (pyenv, rbenv, asdf) runs a series of short helpers before
// it execs the real interpreter, and a server still starting up has not
// bound its port, so has no address to tell. Settled is what a server
// waiting for connections, or a daemon waiting for work, looks like: the
// same processes as a step before, each asleep (state S: not running nor
// waiting for a CPU, which on a busy machine a starting program mostly
// does), using next to no CPU over the step. So the tree is
// sampled every leftSettleStep until it is settled, for at most
// leftSettleMax after the first sample; what runs then is told as it is.
const (
	leftSettleStep = 100 * time.Millisecond
	leftSettleMax  = 3 * time.Second
	// leftIdleCPU is the most CPU (percent of a core, all the processes
	// together, over a step) a settled tree uses: a clock tick or so.
	leftIdleCPU = 10.0
)

// settledLeftProcs lists the live processes of the tree, with what they
// listen on, once the tree has settled (see above).
func settledLeftProcs(root int) []proto.LeftProc {
	smp := sampler.New(root, nil)
	deadline := time.Now().Add(leftSettleMax)
	left, _, _ := sampleLeft(smp)
	for len(left) > 0 && time.Now().Before(deadline) {
		time.Sleep(leftSettleStep)
		next, cpu, asleep := sampleLeft(smp)
		if sameLeft(left, next) && asleep && cpu < leftIdleCPU {
			return next
		}
		left = next
	}
	return left
}

// sampleLeft samples the tree: its processes with what they listen on, the
// CPU they used since the sampler's previous sample, and whether each is
// asleep.
func sampleLeft(smp *sampler.Sampler) (left []proto.LeftProc, cpu float64, asleep bool) {
	tree, err := smp.Sample()
	if err != nil {
		fmt.Fprintln(os.Stderr, "hangdog supervisor: list the processes left running:", err)
		return nil, 0, false
	}
	asleep = true
	for _, p := range tree.Procs {
		cpu += p.CPUPercent
		asleep = asleep && p.State == 'S'
		lp := proto.LeftProc{PID: p.PID, Argv: p.Argv}
		if len(lp.Argv) == 0 {
			lp.Argv = []string{p.Comm}
		}
		for _, sk := range p.Sockets {
			if sk.State == "LISTEN" {
				lp.Listening = append(lp.Listening, sk.Local)
			}
		}
		left = append(left, lp)
	}
	return left, cpu, asleep
}

// sameLeft says whether two lists name the same processes, running the
// same programs and listening on the same addresses.
func sameLeft(a, b []proto.LeftProc) bool {
	return slices.EqualFunc(a, b, func(x, y proto.LeftProc) bool {
		return x.PID == y.PID && slices.Equal(x.Argv, y.Argv) && slices.Equal(x.Listening, y.Listening)
	})
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
