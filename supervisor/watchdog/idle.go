package watchdog

import "time"

// Principle (issue 23, what is left): idle is counted from the last activity,
// not window by window.
//
// A due check used to call the tree idle only when its whole window was: a
// line printed at the start, or a program's start-up CPU, made the first
// window busy, so a command that printed "listening" and then waited forever
// was idle first at the second due check and acted on at the third. What the
// agreement of agreeChecks due checks guards against is acting on a pause, and
// a pause is measured by how long nothing has happened. So the Watch keeps
// when the tree was last active — its last output, and the last sample, fast
// or due, whose CPU or disk I/O said it was doing something, or that could not
// see it whole — and a due check counts as idle when nothing has happened for
// at least idleShare of its window and no timer approaches now. The idle
// streak is the due checks since then; activity restarts it.
//
// The model is asked about the whole window, so it judged the activity that
// began the streak's first window (a start-up line reads as progress). When
// that window began active, the idle trigger needs the model's agreement on
// the windows after it — every window it judged that was idle throughout,
// agreeChecks-1 of them, at least one — rather than on that first one too.

// idleShare is the part of a due check's window, up to the check, in which
// nothing may have happened for the check to count as idle: what happened in
// its first half (a banner, a program starting) is over; a command quiet for
// less than that may be between two steps.
const idleShare = 0.5

// noteActivity records a sample that saw the tree do something: CPU at or
// above idleCPUPercent or disk I/O at the rate of work (disk.go) since the
// previous sample, or a sample
// that failed or had holes (what cannot be seen is never idle).
func (w *Watch) noteActivity(o Observation) {
	t := o.Tree
	if !o.TreeOK || !t.Complete || t.CPUPercent >= idleCPUPercent ||
		diskWork(t.ReadBytes+t.WriteBytes, t.Window) > 0 {
		w.activeAt = laterOf(w.activeAt, o.Now)
	}
}

// lastActive is when the tree was last seen active: its last output or the
// last sample that saw activity, else its start.
func (w *Watch) lastActive(o Observation) time.Time {
	return laterOf(laterOf(w.started, w.activeAt), lastOutputAt(o.Output.LastOutput, w.started))
}

// updateIdle counts the due check at o in the idle streak, or ends it.
func (w *Watch) updateIdle(o Observation, ev evidence) {
	since := w.lastActive(o)
	quiet := ev.quietNow() && o.Now.Sub(since) >= time.Duration(idleShare*float64(ev.windowLen))
	switch {
	case !quiet:
		w.idleStreak = 0
	case since.After(w.win.start):
		// Active earlier in this window: the streak starts here.
		w.idleStreak, w.idleSince, w.idleFromMid = 1, since, true
	case w.idleStreak == 0:
		w.idleStreak, w.idleSince, w.idleFromMid = 1, w.win.start, false
	default:
		w.idleStreak++
	}
}

// idleModelAgree is how many due checks in a row the model must have said
// stuck for the idle trigger to act: agreeChecks, or one fewer when the idle
// streak's first window began active and is still among the last
// agreeChecks (see the principle above).
func (w *Watch) idleModelAgree() int {
	n := w.agree()
	if w.idleFromMid && w.idleStreak <= n {
		return max(n-1, 1)
	}
	return n
}
