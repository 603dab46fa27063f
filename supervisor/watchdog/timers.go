package watchdog

import (
	"fmt"
	"strings"
	"time"

	"github.com/hangdog/hangdog/supervisor/sampler"
)

// Principle (issue 23, cause 1): a bound is a deadline that approaches.
//
// A thread in a timed wait (a sleep, a poll, select or epoll_wait with a
// timeout, a futex with a deadline) used to make the tree "never idle",
// whatever the wait. But a timeout re-armed at the same length sample after
// sample (Node's setInterval, Tcl's `after`, libcurl's and Go's netpoller
// polling a silent peer, an in-process retry loop's `sleep 1`), or a `sleep`
// started again as soon as the last one ended (an endless shell loop), is a
// poll: it says when the program looks again, not when it will be done. And a
// timer far beyond the checks' horizon (the test framework's 10-minute alarm,
// wget's 900 s read timeout) says nothing about now. So a timed wait vetoes
// idle only while it approaches: it is the same call still pending (its
// deadline is not past) or the next one of a thread or program whose last
// wait was shorter (a loop that backs off is not polling), and it ends within
// the horizon. A bound the command declares in its arguments (procbound.go,
// jev.DeclaredBound) vetoes whatever its length.

// timerHorizon is the farthest a deadline may be and still say something
// about now: the next due check sees a farther one again, and half a minute
// is the least any wait is given. (Go's runtime parks its monitor thread for
// 60 s at a time, and a test's alarm is minutes away: neither is a bound.)
func (w *Watch) timerHorizon() time.Duration { return max(w.cfg.Interval(), minTimerHorizon) }

// minTimerHorizon is timerHorizon's floor.
const minTimerHorizon = 30 * time.Second

// timerKey names one thread across samples.
type timerKey struct{ pid, tid int }

// timerCall is the last timed wait seen on a thread, or of a program.
type timerCall struct {
	key      timerKey // the thread it was seen on
	syscall  string
	timeout  time.Duration
	deadline time.Time // when the call ends by itself
	seen     time.Time // the last sample that saw it
	polling  bool      // it was re-armed: a poll stays one until it waits much longer
}

// timerView is what the timers of one sample say.
type timerView struct {
	approaching []sampler.Timer // deadlines that approach, within the horizon
	polls       []sampler.Timer // re-armed waits
	far         []sampler.Timer // beyond the horizon
	unknown     bool            // a timer whose timeout could not be read, or more than the sampler lists
}

// pending is whether the tree waits on a timer that vetoes idle.
func (v timerView) pending() bool { return len(v.approaching) > 0 || v.unknown }

// timerWatch tells the approaching deadlines of a tree from its polls, across
// samples.
type timerWatch struct {
	threads  map[timerKey]timerCall
	programs map[string]timerCall // comm and call: a `sleep` started again is a new process
	last     time.Time            // the sample judged last (StateFor and Due see the same one)
	view     timerView
}

// judge sorts the timers of sample t. It is idempotent for one sample.
func (tw *timerWatch) judge(t sampler.Tree, now time.Time, horizon time.Duration) timerView {
	if !t.Time.IsZero() && t.Time.Equal(tw.last) {
		return tw.view
	}
	if tw.threads == nil {
		tw.threads, tw.programs = map[timerKey]timerCall{}, map[string]timerCall{}
	}
	tw.last = t.Time
	v := timerView{unknown: t.TimersCapped || len(t.Timers) == 0} // a timed wait the sampler could not list
	seen := make(map[timerKey]bool, len(t.Timers))
	alive := make(map[int]bool, len(t.Procs))
	for _, p := range t.Procs {
		alive[p.PID] = true
	}
	for _, tm := range t.Timers {
		seen[timerKey{tm.PID, tm.TID}] = true
	}
	for _, tm := range t.Timers {
		k := timerKey{tm.PID, tm.TID}
		prog := tm.Comm + "\x00" + tm.Syscall
		if tm.Timeout <= 0 {
			v.unknown = true
			continue
		}
		end := now.Add(tm.Timeout)
		prev, sameThread := tw.threads[k]
		known := sameThread
		if !known {
			prev, known = tw.programs[prog]
		}
		rearmed := false
		switch {
		case known && prev.polling && tm.Timeout <= 2*prev.timeout:
			// Once re-armed, a wait as long as the last is the poll again,
			// even when a sample lands just before its end (samples a
			// second apart, a 1 s poll) and it looks like the same call.
			rearmed = true
		case sameThread && prev.syscall == tm.Syscall && !tm.Absolute && tm.Timeout == prev.timeout && now.Before(prev.deadline):
			// The same call, still pending: a call with timeout T seen at t
			// has ended by t+T, so a wait seen after that is another one.
			end = prev.deadline
		case known && !sameThread && !seen[prev.key] && !alive[prev.key.pid] && tm.Timeout <= 2*prev.timeout:
			// The process of the last wait has ended and the same program
			// waits again, no longer: a sleep started again when the last
			// one ended (`while …; do sleep 1; done`). Its end is what says
			// so, not a deadline computed from when a sample happened to see
			// it, which a loop as long as the sampling period straddles.
			rearmed = true
		case known && !now.Before(prev.deadline) && (tm.Timeout <= prev.timeout+prev.timeout/10 || tm.Timeout <= now.Sub(prev.seen)+time.Second):
			// The last wait has ended and another began, no longer than the
			// last (a tenth for the loop's own time) or than the time between
			// two looks: a poll. A wait that grows past both is a back-off,
			// or the next step toward a deadline: an event loop that woke for
			// a nearer timer and now waits out a request's (5 s, then 7 s, to
			// a 12 s timeout) approaches it.
			rearmed = true
		}
		call := timerCall{key: k, syscall: tm.Syscall, timeout: tm.Timeout, deadline: end, seen: now, polling: rearmed}
		if known && !rearmed && tm.Absolute && prev.deadline.Sub(end).Abs() < time.Second {
			call.timeout = prev.timeout // an absolute deadline: compare the first timeout seen
		}
		tw.threads[k] = call
		tw.programs[prog] = call
		switch {
		case rearmed:
			v.polls = append(v.polls, tm)
		case end.Sub(now) > horizon:
			v.far = append(v.far, tm)
		default:
			v.approaching = append(v.approaching, tm)
		}
	}
	for k := range tw.threads {
		if !seen[k] {
			delete(tw.threads, k)
		}
	}
	if len(tw.programs) > 256 { // a long build runs many programs
		clear(tw.programs)
	}
	tw.view = v
	return v
}

// note is the evidence of the timers that do not veto.
func (v timerView) note() string {
	var parts []string
	if len(v.polls) > 0 {
		parts = append(parts, "re-armed timer (a poll, not a bound): "+timerList(v.polls))
	}
	if len(v.far) > 0 {
		parts = append(parts, "timer beyond the horizon (says nothing about now): "+timerList(v.far))
	}
	return strings.Join(parts, "; ")
}

func timerList(ts []sampler.Timer) string {
	var b strings.Builder
	for i, tm := range ts {
		if i == 2 {
			fmt.Fprintf(&b, " and %d more", len(ts)-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s pid %d in %s %s", quote(tm.Comm, 20), tm.PID, tm.Syscall, seconds(tm.Timeout))
	}
	return b.String()
}

// seeTimers replaces the sample's timers by those that approach (see the
// principle above): o.Tree.TimerSleep is then whether one vetoes idle, and
// the note says which were set aside as polls or far.
func (w *Watch) seeTimers(o *Observation) string {
	if !o.TreeOK || !o.Tree.TimerSleep {
		return ""
	}
	v := w.timers.judge(o.Tree, o.Now, w.timerHorizon())
	o.Tree.TimerSleep = v.pending()
	o.Tree.Timers = v.approaching
	return v.note()
}
