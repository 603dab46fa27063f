package watchdog

import (
	"fmt"
	"time"

	"github.com/hangdog/hangdog/jev"
	"github.com/hangdog/hangdog/settings/watchdogconf"
	"github.com/hangdog/hangdog/supervisor/activity"
)

// minInterval keeps a zero or negative interval (which settings refuse
// anyway) from turning the due schedule into a busy loop.
const minInterval = time.Second

// Watch is the watchdog's memory of one task between checks. It is used by
// the supervisor's check loop alone and is not safe for concurrent use.
//
// Pass every output snapshot and every tree sample through the Watch
// (FastCheckWanted, Fast, Due): their counters are deltas since the previous
// call, and a due check judges the sum over its whole window.
type Watch struct {
	cfg     watchdogconf.Watchdog
	command string
	started time.Time

	bound   time.Duration // jev.DeclaredBound, computed once
	bounded bool

	forceAct    bool
	background  bool // the task runs detached: nothing to detach, nobody blocked
	interactive bool

	checks    int // all checks
	dueChecks int
	lastDue   time.Time
	win       window

	input      inputWatch
	service    serviceView
	procBounds procBounds
	respawns   respawns
	timers     timerWatch
	redrawn    redrawnLine

	status       string // the status the current streak agrees on
	statusStreak int
	stopStreak   int
	// activeAt is the last sample that saw the tree do something (CPU,
	// disk I/O) or could not see it whole; with the last output it is when
	// the tree was last active (idle.go).
	activeAt      time.Time
	idleStreak    int
	idleSince     time.Time // when the tree was last active, or the idle streak's first window began
	idleFromMid   bool      // the idle streak's first window began active: the model judged that activity
	expectStreak  int
	serviceStreak int
	// serviceSoon is when the next due check comes while the command
	// listens and could be detached as a service (service_soon.go); zero
	// when it does not.
	serviceSoon time.Time
}

// Option adjusts a Watch when it is made.
type Option func(*Watch)

// ForceAct makes the first due check act with trigger "forced", whatever it
// sees — for testing the action paths end to end. The caller of New reads
// HANGDOG_WATCHDOG_FORCE_ACT=1 and passes ForceAct(true).
func ForceAct(on bool) Option { return func(w *Watch) { w.forceAct = on } }

// InBackground says the task runs detached from the start (`bg run`).
func InBackground(on bool) Option { return func(w *Watch) { w.background = on } }

// New starts watching a command that started at started. Its declared time
// bound and what the command line alone says about it are worked out once.
func New(cfg watchdogconf.Watchdog, command string, started time.Time, opts ...Option) *Watch {
	w := &Watch{cfg: cfg, command: command, started: started, win: newWindow(started, 0)}
	w.bound, w.bounded = jev.DeclaredBound(command)
	w.service = serviceFromCommand(command)
	for _, opt := range opts {
		opt(w)
	}
	return w
}

// NextDue is when the next full check is due: firstCheck after the start,
// then every interval on a fixed schedule from there — not from when the
// last check happened to run, so a once-a-second tick cannot make the checks
// drift later and later. A check that ran late (a slow model) skips the slots
// it missed rather than firing them back to back.
func (w *Watch) NextDue() time.Time {
	return w.serviceDue(w.scheduledDue())
}

// scheduledDue is NextDue on the configured schedule alone.
func (w *Watch) scheduledDue() time.Time {
	first := w.started.Add(max(w.cfg.FirstCheck(), 0))
	if w.dueChecks == 0 {
		return first
	}
	interval := max(w.cfg.Interval(), minInterval)
	k := time.Duration(w.dueChecks)
	if next := first.Add(k * interval); next.After(w.lastDue) {
		return next
	}
	return first.Add((w.lastDue.Sub(first)/interval + 1) * interval)
}

// SetInteractive records that a person came to the terminal (or left it) at
// now. A wait on the terminal is counted from the moment they left.
func (w *Watch) SetInteractive(on bool, now time.Time) {
	if on || w.interactive {
		w.input.personAt = laterOf(w.input.personAt, now)
	}
	w.interactive = on
}

// SetBackground records that the task was detached (Ctrl+B, `bg detach`):
// from then on there is no caller to unblock, so a background action becomes
// a warning and services are no longer detached. An act with action
// background records it by itself.
func (w *Watch) SetBackground() { w.background = true }

func (w *Watch) noteInteractive(o Observation) {
	w.SetInteractive(o.Interactive, o.Now)
}

// FastCheckWanted says, cheaply and from the output alone, whether a tree
// sample for a fast input check is worth taking now: the command has been
// silent for a second or more, nobody is at the terminal, and either no
// sample has looked at it for a while (the wait backs off as the silence
// grows) or a process seen blocked on the terminal has now waited
// inputWaitSec. It also counts the output lines s reports (see Watch).
func (w *Watch) FastCheckWanted(s activity.Stats, now time.Time) bool {
	w.win.addOutput(s)
	w.seeLine(s)
	if !w.cfg.Enabled || w.interactive {
		return false
	}
	last := lastOutputAt(s.LastOutput, w.started)
	silence := now.Sub(last)
	if silence < time.Second {
		return false
	}
	iw := &w.input
	if iw.lastSampleReading && !iw.lastSample.Before(last) {
		start := iw.waitStart(s.LastOutput, w.started)
		if start.Equal(iw.decidedWait) {
			return false
		}
		return !now.Before(start.Add(w.cfg.InputWait()))
	}
	return now.Sub(iw.lastSample) >= fastSpacing(silence, w.cfg.InputWait())-tickSlack
}

// tickSlack: the supervisor's ticks (a second apart) come a little early or
// late with the scheduler, so a sample wanted a second after the last is taken
// at the next tick, not skipped to the one after. Since the first sample is an
// observation too, the second comes at the next tick, a second later.
const tickSlack = 100 * time.Millisecond

// fastSpacing is how long to leave between fast samples of a silent command
// that is not reading the terminal: a second at first, then a quarter of the
// silence, never more than half the input wait. A program that prompts prints
// the prompt and so restarts the count; one that starts reading silently
// after a long quiet spell is found within half the input wait.
func fastSpacing(silence, inputWait time.Duration) time.Duration {
	return min(max(silence/4, time.Second), max(inputWait/2, time.Second))
}

// Fast is a check without the model: it acts only on a process blocked
// reading a terminal nobody is at, once it has waited inputWaitSec.
func (w *Watch) Fast(o Observation) Decision {
	w.seeTimers(&o)
	w.noteInteractive(o)
	w.win.add(o)
	w.seeLine(o.Output)
	w.noteActivity(o)
	w.checks++
	d := Decision{Time: o.Now, Check: w.checks}
	if o.TreeOK {
		// Every sample counts the starts of a loop's body, so a `sleep 1`
		// first seen by a due check is known as started again, not a bound.
		w.procBounds.update(o.Tree, o.Now)
		w.respawns.update(o.Tree, o.Output.LastOutput)
	}
	f := w.findInput(o)
	if !f.reading {
		w.noteListening(o)
		if o.TreeOK {
			d.Evidence = []string{"nothing reads the terminal; no new output for " + seconds(sinceOutput(o))}
		} else {
			d.Evidence = []string{"the process tree could not be sampled"}
		}
		return d
	}
	d.Status, d.Confidence = jev.Waiting, inputConfidence
	w.settleInput(&d, o, f)
	return d
}

// Due is a full check, with the judge's verdict on the window since the
// previous due check.
func (w *Watch) Due(o Observation) Decision {
	timerNote := w.seeTimers(&o)
	w.noteInteractive(o)
	w.win.add(o)
	w.noteActivity(o)
	ev := measure(w.win, o)
	w.checks++
	w.dueChecks++
	w.lastDue = o.Now

	if o.TreeOK {
		w.procBounds.update(o.Tree, o.Now)
		w.respawns.update(o.Tree, o.Output.LastOutput)
	}
	v := o.Verdict
	w.service.update(v)
	svc, svcWhy := w.service.isService(o.Tree, o.TreeOK)
	w.updateStreaks(v, ev, svc)
	w.updateIdle(o, ev)

	d := Decision{Time: o.Now, Check: w.checks, Due: true, Streak: w.statusStreak}
	if v != nil && !v.Status.Abstain {
		d.Status, d.Confidence = v.Status.Choice, v.Status.Confidence
	}
	d.Evidence = append(ev.describe(), verdictEvidence(v)...)
	if svc {
		d.Evidence = append(d.Evidence, "service: "+svcWhy)
	}
	if o.TreeOK {
		if o.Tree.TimerSleep {
			d.Evidence = appendNote(d.Evidence, timersEvidence(o.Tree))
		} else if !o.Tree.AnyRunning {
			d.Evidence = appendNote(d.Evidence, blockedEvidence(o.Tree))
		}
		d.Evidence = appendNote(d.Evidence, timerNote)
		if o.Tree.ReadingTTY && o.Tree.Forwarding {
			d.Evidence = append(d.Evidence, fmt.Sprintf("%s (pid %d) reads the terminal only to forward it: it waits on a connection too",
				quote(o.Tree.ReadingTTYComm, 30), o.Tree.ReadingTTYPID))
		}
	}

	w.decideDue(&d, o, ev, svc, svcWhy)
	w.redrawn.remember(o.Output.LastLine)
	w.win = w.win.next(o.Now, o.Output.TotalBytes)
	w.afterDueForService(o)
	return d
}

func (w *Watch) updateStreaks(v *jev.Verdict, ev evidence, svc bool) {
	conf := w.cfg.Confidence
	if v != nil && !v.Status.Abstain && v.Status.Choice != "" && v.Status.Confidence >= conf {
		if v.Status.Choice == w.status {
			w.statusStreak++
		} else {
			w.status, w.statusStreak = v.Status.Choice, 1
		}
	} else {
		w.status, w.statusStreak = "", 0
	}
	w.stopStreak = bump(w.stopStreak, v != nil && !v.Stop.Abstain && v.Stop.Value >= conf)
	w.expectStreak = bump(w.expectStreak, v != nil && !v.Expect.Abstain &&
		v.Expect.Choice == jev.ExpectSeconds && v.Expect.Confidence >= conf)
	w.serviceStreak = bump(w.serviceStreak, svc)
}

// consumeStreaks is called after an act: the next act needs a fresh streak,
// so a warning is not repeated at every check.
func (w *Watch) consumeStreaks() {
	w.status, w.statusStreak = "", 0
	w.stopStreak, w.idleStreak, w.expectStreak, w.serviceStreak = 0, 0, 0, 0
}

func bump(n int, holds bool) int {
	if holds {
		return n + 1
	}
	return 0
}

// agree is how many due checks in a row a trigger needs.
func (w *Watch) agree() int { return max(w.cfg.AgreeChecks, 1) }

// action is the configured action; anything unknown is the default.
func (w *Watch) action() string {
	switch w.cfg.Action {
	case ActionKill, ActionWarn:
		return w.cfg.Action
	}
	return ActionBackground
}

func laterOf(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
