//go:build linux

package supervisor

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/supervisor/proto"
)

// reap collects every child the kernel hands the subreaper, and reports the
// command's own status once. A child that ended before SIGCHLD was caught
// is collected by the first sweep.
func (s *supervisor) reap(env *environment) {
	<-env.signalsReady
	for {
		reaped := false
		for {
			var ws unix.WaitStatus
			pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
			reaped = true
			if pid == s.pid {
				s.exited <- ws
			}
		}
		if reaped {
			select {
			case s.reaped <- struct{}{}:
			default: // one pending wake covers any number of children
			}
		}
		<-env.sigchld
	}
}

// kill stops the whole tree: sig to every descendant, SIGKILL to whatever is
// left after grace, until nothing of the task remains. Only the first kill
// counts; later ones wait for it.
func (s *supervisor) kill(sig syscall.Signal, grace time.Duration, reason string) {
	s.mu.Lock()
	if s.killDone != nil {
		done := s.killDone
		s.mu.Unlock()
		<-done
		return
	}
	select {
	case <-s.ended:
		s.mu.Unlock()
		return
	default:
	}
	s.killReason = reason
	done := make(chan struct{})
	s.killDone = done
	s.mu.Unlock()
	defer close(done)

	signalTree(s.self, sig)
	hard := time.Now().Add(grace)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for range tick.C {
		if len(descendants(s.self)) == 0 {
			return
		}
		if time.Now().After(hard) {
			signalTree(s.self, syscall.SIGKILL)
		}
	}
}

// finish records the result, announces it, and tells the caller.
func (s *supervisor) finish(ws unix.WaitStatus) {
	res := bgtasks.Result{State: bgtasks.Exited, Ended: time.Now(), OutputBytes: s.written.Load()}
	if ws.Signaled() {
		res.Signal = unix.SignalName(ws.Signal())
		res.ExitCode = 128 + int(ws.Signal())
	} else {
		res.ExitCode = ws.ExitStatus()
	}
	s.mu.Lock()
	if s.killReason != "" {
		res.State = bgtasks.Killed
		res.Reason = s.killReason
	}
	mode := s.meta.Mode
	meta := s.meta
	s.mu.Unlock()
	s.noteUnlogged(&res)

	var err error
	if s.resultFile != nil {
		err = s.resultFile.Write(res)
	} else {
		err = s.reg.WriteResult(s.meta.ID, res)
	}
	if err != nil && !errors.Is(err, bgtasks.ErrAlreadyEnded) {
		fmt.Fprintln(os.Stderr, "hangdog supervisor:", err)
	}
	s.mu.Lock()
	s.result = res
	close(s.ended)
	s.mu.Unlock()

	if mode == bgtasks.Background || res.State == bgtasks.Killed {
		s.announce(meta, res)
	}
	b, _ := json.Marshal(wireResult(res))
	s.sendFrame(proto.FrameEnded, b)
	s.linkMu.Lock()
	if s.link != nil {
		s.link.Close()
		s.link = nil
	}
	s.linkMu.Unlock()
}

func (s *supervisor) announce(meta bgtasks.Meta, res bgtasks.Result) {
	if meta.QuietEnd && res.State == bgtasks.Exited && res.ExitCode == 0 {
		return
	}
	kind := bgtasks.EventExited
	if res.State == bgtasks.Killed {
		kind = bgtasks.EventKilled
	}
	code := res.ExitCode
	ev := meta.Event(kind)
	ev.ExitCode, ev.Signal = &code, res.Signal
	ev.DurationMS, ev.Reason, ev.Tail = res.Ended.Sub(meta.Started).Milliseconds(), res.Reason, s.lastLines()
	if _, err := s.reg.AppendEvent(ev); err != nil {
		fmt.Fprintln(os.Stderr, "hangdog supervisor:", err)
	}
}
