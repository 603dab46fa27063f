//go:build linux

package mcpserver

import (
	"sync"
	"time"

	"github.com/hangdog/hangdog/taskctl"
)

// spare keeps one supervisor started ahead of the session's next bash
// call, so the call does not wait for a process and its Go runtime to
// start (about 3 ms here, a third of a quick call). It is started when the
// session starts and again once the reply to the call that took it is
// written: started while that call runs, its start-up competed with the
// call for the CPU on two cores (7-10 % of a call, README).
//
// It is the server's own child, started as a call would start one: same
// process, cgroup, limits and priority. Its environment is the server's;
// a call's own (its BASH_ENV, the agent profile's switch) goes in the
// hand-over, and a spare that no longer fits (taskctl.Pending.Fits) is let
// go and a fresh supervisor started. Until a call takes it, it is no task:
// nothing is registered, and letting it go (the session ending, the server
// killed: its end of the link closes) makes it exit.
type spare struct {
	mu      sync.Mutex
	next    *taskctl.Pending
	filling bool
	closed  bool
	wg      sync.WaitGroup // the goroutine starting one
	logErr  func(error)
}

// fill starts a spare in the background unless one is there or starting.
func (sp *spare) fill() {
	sp.mu.Lock()
	if sp.closed || sp.next != nil || sp.filling {
		sp.mu.Unlock()
		return
	}
	sp.filling = true
	sp.wg.Add(1)
	sp.mu.Unlock()
	go func() {
		defer sp.wg.Done()
		p, err := taskctl.Prestart(nil)
		sp.mu.Lock()
		sp.filling = false
		keep := err == nil && !sp.closed
		if keep {
			sp.next = p
		}
		sp.mu.Unlock()
		if err != nil {
			// A call then starts its own, and reports the error if it
			// fails too.
			sp.logErr(err)
		} else if !keep {
			sp.letGo(p)
		}
	}()
}

// take returns the spare if it fits a call with environment env, else nil
// (the caller starts a supervisor of its own).
func (sp *spare) take(env []string) *taskctl.Pending {
	sp.mu.Lock()
	p := sp.next
	sp.next = nil
	sp.mu.Unlock()
	if p != nil && !p.Fits(env) {
		p.Cancel()
		p = nil
	}
	return p
}

// spareExitWait bounds how long close waits for a let-go spare to exit; it
// exits as soon as it reads the end of its link, so the bound costs nothing
// but on a machine so loaded that a process waits seconds to run (2 s was
// passed at a load average of 18 on two cores); it only keeps a spare that
// hangs from holding the session's end for ever.
const spareExitWait = 5 * time.Second

// close lets the spare go, waits for it to exit, and starts no more.
func (sp *spare) close() {
	sp.mu.Lock()
	sp.closed = true
	p := sp.next
	sp.next = nil
	sp.mu.Unlock()
	sp.wg.Wait()
	if p != nil {
		sp.letGo(p)
	}
}

// letGo cancels p and waits for it to exit, so a server that is ending
// leaves no supervisor behind it, even for a moment.
func (sp *spare) letGo(p *taskctl.Pending) {
	p.Cancel()
	select {
	case <-p.Exited():
	case <-time.After(spareExitWait):
	}
}
