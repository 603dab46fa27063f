package watchdog

import (
	"fmt"
	"time"

	"github.com/hangdog/hangdog/internal/termtext"
	"github.com/hangdog/hangdog/jev"
	"github.com/hangdog/hangdog/supervisor/sampler"
)

// inputFinding is what one sample says about a wait on the terminal.
type inputFinding struct {
	reading bool // a foreground process is blocked reading the terminal
	wait    inputWait
	waited  time.Duration
	start   time.Time
	held    *sampler.Timer // the reader's own deadline, waited out
	due     bool           // nobody at it, waited inputWaitSec, no deadline held, not decided on yet
}

func (w *Watch) findInput(o Observation) inputFinding {
	waited, start := w.input.observe(o)
	if !o.TreeOK || !readingTTY(o.Tree) {
		return inputFinding{}
	}
	held := readerDeadline(o.Tree)
	return inputFinding{
		reading: true,
		wait:    classifyInput(o.Tree, o.Output.LastLine, o.Output.Tail),
		waited:  waited,
		start:   start,
		held:    held,
		due:     !o.Interactive && held == nil && waited >= inputWaitFor(o.Tree, w.cfg.InputWait()) && !start.Equal(w.input.decidedWait),
	}
}

// readerDeadline is a deadline that approaches (timers.go) held by the
// process reading the terminal in line mode, within maxBoundedRead: a read whose timeout
// another thread keeps (a Go program selecting on its read and a timer, a
// prompt that takes a default answer), waited out like `read -t`. A poll or
// a far timer is none. o.Tree.Timers holds only approaching ones here.
func readerDeadline(t sampler.Tree) *sampler.Timer {
	if t.TTYMode == sampler.TTYRaw {
		// As in inputWaitFor: a raw-mode reader (an editor, a REPL, a
		// TUI) keeps timers for its own housekeeping, not to give up —
		// node's REPL holds an 8 s one, re-armed.
		return nil
	}
	for i, tm := range t.Timers {
		if tm.PID == t.ReadingTTYPID && tm.Timeout > 0 && tm.Timeout <= maxBoundedRead {
			return &t.Timers[i]
		}
	}
	return nil
}

// maxBoundedRead is the longest timeout of a read on the terminal the input
// trigger waits out: `read -t 30` gives up by itself, a read that would only
// give up in an hour is, for a caller, waiting for input.
const maxBoundedRead = 60 * time.Second

// inputWaitFor is how long a wait on the terminal must last before it is
// acted on: inputWaitSec, or, for a line-mode read whose own call has a
// timeout (`read -t N` waits in pselect6 with one), until that timeout has
// passed. Raw-mode programs are not waited out: editors and REPLs poll with a
// timeout for their own housekeeping (vim's updatetime), not to give up.
func inputWaitFor(t sampler.Tree, wait time.Duration) time.Duration {
	if !t.ReadingTTYTimed || t.TTYMode == sampler.TTYRaw || t.ReadingTTYTimeout <= 0 || t.ReadingTTYTimeout > maxBoundedRead {
		return wait
	}
	return max(wait, t.ReadingTTYTimeout+boundedReadGrace)
}

// boundedReadGrace: the read's timeout counts from the call, which starts a
// moment after the prompt that starts the wait.
const boundedReadGrace = 2 * time.Second

// settleInput decides on a process blocked reading the terminal. Input needs
// no streak and no model: blocked on a terminal nobody can type into is
// certain. A declared bound does not veto it either — the bound says how long
// the work may take, not that someone will answer.
func (w *Watch) settleInput(d *Decision, o Observation, f inputFinding) {
	d.InputKind = f.wait.kind
	d.Evidence = append(d.Evidence, inputEvidence(o.Tree, f.waited))
	if o.Interactive {
		if d.Status != jev.Waiting {
			d.Status, d.Confidence = jev.Waiting, inputConfidence
		}
		d.Veto = VetoInteractive
		d.Reason = inputReason(f.wait, true)
		return
	}
	if !f.due {
		if !f.start.IsZero() && f.start.Equal(w.input.decidedWait) {
			d.Evidence = append(d.Evidence, "this wait was already decided on")
		} else if f.held != nil {
			d.Evidence = append(d.Evidence, fmt.Sprintf("the reader holds a deadline that approaches (%s in %s, %s): a read that gives up by itself, waited out",
				quote(f.held.Comm, 20), f.held.Syscall, seconds(f.held.Timeout)))
		} else {
			d.Evidence = append(d.Evidence, "acts once it has waited "+seconds(inputWaitFor(o.Tree, w.cfg.InputWait())))
		}
		return
	}
	d.Trigger = TriggerInput
	d.Streak = 0
	d.Reason = inputReason(f.wait, false)
	// Decided once, acted on or vetoed: the same wait is not sampled and
	// reported again at every tick.
	w.input.decidedWait = f.start
	svc, why := w.service.isService(o.Tree, o.TreeOK)
	if veto, note := w.commonVeto(svc, why); veto != "" {
		d.Veto = veto
		d.Evidence = append(d.Evidence, note)
		return
	}
	w.act(d)
}

// candidate is a trigger whose streak is long enough to act, with the vetoes
// that apply to it.
type candidate struct {
	trigger string
	streak  int
	reason  func() string // built only for the candidate reported
	note    string        // trigger-specific evidence

	boundVeto    bool
	progressVeto bool
	needSample   sampleNeed
}

type sampleNeed int

const (
	needNothing  sampleNeed = iota
	needSample              // this check's sample succeeded
	needComplete            // and every sample of the window was whole
)

func (w *Watch) decideDue(d *Decision, o Observation, ev evidence, svc bool, svcWhy string) {
	if f := w.findInput(o); f.reading {
		// Until the wait is due, this only adds evidence, and a trigger with
		// a full streak may still act.
		w.settleInput(d, o, f)
		if d.Trigger != "" || d.Veto != "" {
			return
		}
	}
	if w.forceAct && w.dueChecks == 1 {
		d.Trigger = TriggerForced
		d.Reason = "forced by HANGDOG_WATCHDOG_FORCE_ACT=1, to test the action path"
		if veto, note := w.commonVeto(svc, svcWhy); veto != "" {
			d.Veto = veto
			d.Evidence = append(d.Evidence, note)
			return
		}
		w.act(d)
		return
	}

	cands := w.candidates(o, ev, svc, svcWhy)
	if len(cands) == 0 {
		return
	}
	progress, progressWhy := ev.progress()
	first := ""
	firstNote := ""
	for _, c := range cands {
		veto, note := "", ""
		switch {
		case !w.cfg.Enabled:
			veto, note = VetoDisabled, "watchdog.enabled is false"
		case c.boundVeto && w.bounded && o.Now.Before(w.boundEnd()):
			veto, note = w.boundVeto(o.Now), fmt.Sprintf("the command declares it may take %s", seconds(w.bound))
		case c.boundVeto && w.procBounds.holds(o.Now):
			veto, note = w.procBounds.veto(o.Now)
		case c.boundVeto && o.TreeOK && len(o.Tree.Timers) > 0:
			// A deadline that approaches is a bound until it passes
			// (timers.go: o.Tree.Timers holds only those).
			tm := o.Tree.Timers[0]
			veto, note = VetoBound+" (a deadline approaches)", fmt.Sprintf("%s (pid %d) waits in %s with a deadline %s away at most: a bound until it passes",
				quote(tm.Comm, 20), tm.PID, tm.Syscall, seconds(tm.Timeout))
		case c.needSample == needSample && !ev.treeOK,
			c.needSample == needComplete && !ev.complete:
			veto, note = VetoIncomplete, "the process tree could not be read in full, so it cannot be called idle"
		case c.progressVeto && progress:
			veto, note = VetoProgress, progressWhy
		case svc && w.action() == ActionKill:
			veto, note = VetoService, "a service is never killed ("+svcWhy+")"
		}
		if veto == "" {
			d.Trigger, d.Streak, d.Reason = c.trigger, c.streak, c.reason()
			d.Evidence = appendNote(d.Evidence, c.note)
			w.act(d)
			return
		}
		if first == "" {
			first, firstNote = veto, note
			d.Trigger, d.Streak, d.Reason = c.trigger, c.streak, c.reason()
			d.Evidence = appendNote(d.Evidence, c.note)
		}
	}
	d.Veto = first
	d.Evidence = appendNote(d.Evidence, firstNote)
}

// candidates lists the triggers whose streaks are long enough, most specific
// first: looping (fires through output), a service to detach, idle (measured,
// and agreed by the model), the model's stop, and a quick command overrunning.
func (w *Watch) candidates(o Observation, ev evidence, svc bool, svcWhy string) []candidate {
	v := o.Verdict
	n := w.agree()
	var out []candidate
	if w.status == jev.Looping && w.statusStreak >= n {
		out = append(out, candidate{
			trigger:   TriggerLooping,
			streak:    w.statusStreak,
			reason:    func() string { return loopingReason(o, ev) },
			boundVeto: true,
		})
	}
	if svc && !w.background && w.action() == ActionBackground && w.serviceStreak >= n && w.dueChecks >= 2 && !ev.outputInWindow {
		if up, where := serviceUp(o.Tree, o.TreeOK, o.Output); up {
			out = append(out, candidate{
				trigger:   TriggerService,
				streak:    w.serviceStreak,
				reason:    func() string { return "service " + where + ", up and idle — detached so you are not blocked" },
				note:      fmt.Sprintf("no new output since the previous check %s ago", seconds(ev.windowLen)),
				boundVeto: true,
			})
		}
	}
	if w.idleStreak >= max(n, 2) && w.status == jev.Stuck && w.statusStreak >= w.idleModelAgree() {
		out = append(out, candidate{
			trigger: TriggerIdle,
			streak:  w.idleStreak,
			reason: func() string {
				return fmt.Sprintf("stuck: no CPU, disk I/O or output for %s and no timer pending", seconds(o.Now.Sub(w.idleSince)))
			},
			note:         fmt.Sprintf("idle on %d due checks in a row", w.idleStreak),
			boundVeto:    true,
			progressVeto: true,
			needSample:   needComplete,
		})
	}
	if w.stopStreak >= n && v != nil {
		out = append(out, candidate{
			trigger: TriggerStop,
			streak:  w.stopStreak,
			reason: func() string {
				return fmt.Sprintf("the decision model says stop waiting (%.2f) on %d checks in a row: %s",
					v.Stop.Value, w.stopStreak, brief(firstEvidence(v.Stop, firstEvidence(v.Status, "no evidence given"))))
			},
			note:         stopNote(v),
			boundVeto:    true,
			progressVeto: true,
			needSample:   needSample,
		})
	}
	// A process sleeping in a timer is waiting for a set time, which is not
	// what a command that should be over in seconds looks like when stuck.
	timerPending := o.TreeOK && o.Tree.TimerSleep
	if w.expectStreak >= n && v != nil && !timerPending {
		out = append(out, candidate{
			trigger: TriggerExpect,
			streak:  w.expectStreak,
			reason: func() string {
				return fmt.Sprintf("expected to finish in seconds but still running after %s with no progress (%s)",
					seconds(o.Now.Sub(o.Started)), brief(firstEvidence(v.Expect, "judged from the command")))
			},
			boundVeto:    true,
			progressVeto: true,
			needSample:   needSample,
		})
	}
	return out
}

// commonVeto is what blocks the triggers that ignore progress and bounds
// (input, forced): the watchdog being off, and a service under action kill.
func (w *Watch) commonVeto(svc bool, svcWhy string) (veto, note string) {
	switch {
	case !w.cfg.Enabled:
		return VetoDisabled, "watchdog.enabled is false"
	case svc && w.action() == ActionKill:
		return VetoService, "a service is never killed (" + svcWhy + ")"
	}
	return "", ""
}

// boundGrace is how long past a declared bound the veto still holds: a
// check landing just as `timeout` fires or `sleep N` returns would otherwise
// act on a command in the middle of ending (or of starting its next step).
const boundGrace = 5 * time.Second

// boundEnd is when the declared bound, with its grace, has passed.
func (w *Watch) boundEnd() time.Time { return w.started.Add(w.bound + boundGrace) }

func (w *Watch) boundVeto(now time.Time) string {
	until := w.boundEnd().In(now.Location())
	return fmt.Sprintf("%s (until %s / %s)", VetoBound, until.Format("15:04:05"), seconds(w.bound))
}

// act turns d into an action. A task already in the background has nobody
// to unblock, so backgrounding it again becomes a warning; a task sent to
// the background stays there.
func (w *Watch) act(d *Decision) {
	d.Act = true
	d.Action = w.action()
	if d.Action == ActionBackground {
		if w.background {
			d.Action = ActionWarn
		}
		w.background = true
	}
	w.consumeStreaks()
}

func loopingReason(o Observation, ev evidence) string {
	s := "looping: the same output keeps repeating without progress"
	if ev.repetition > 0 {
		s += fmt.Sprintf(" (repetition %.2f)", ev.repetition)
	}
	last := o.Output.LastLine
	if last == "" && len(o.Output.Tail) > 0 {
		last = o.Output.Tail[len(o.Output.Tail)-1]
	}
	if last != "" {
		s += ", last line " + quote(last, 120)
	}
	return s
}

func stopNote(v *jev.Verdict) string {
	if len(v.Stop.Evidence) == 0 {
		return ""
	}
	return "stop: " + v.Stop.Evidence[0]
}

// verdictEvidence is the judge's account of the status, and whether a remote
// model was asked or failed.
func verdictEvidence(v *jev.Verdict) []string {
	if v == nil {
		return []string{"no verdict from the decision model"}
	}
	var out []string
	if v.Status.Abstain {
		out = append(out, "the decision model abstained on status")
	}
	for i, e := range v.Status.Evidence {
		if i == 3 {
			break
		}
		out = append(out, e)
	}
	if v.RemoteErr != nil {
		out = append(out, "remote model failed, local answer used: "+v.RemoteErr.Error())
	} else if v.RemoteAsked {
		out = append(out, "remote model asked ("+v.Status.Backend+")")
	}
	return out
}

func appendNote(ev []string, note string) []string {
	if note == "" {
		return ev
	}
	for _, e := range ev {
		if e == note {
			return ev
		}
	}
	return append(ev, note)
}

// brief makes a model's evidence fit in a one-line reason. A remote model's
// words may echo command output, so they are redacted like output.
func brief(s string) string { return termtext.Clip(jev.Redact(termtext.OneLine(s)), 200) }
