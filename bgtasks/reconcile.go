package bgtasks

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// LostReason is the Reason recorded for a task whose supervisor vanished.
const LostReason = "supervisor exited without recording a result; output kept"

// LostExitCode is the ExitCode recorded for a lost task: the real code is
// unknown, and -1 cannot be mistaken for one a process could return.
const LostExitCode = -1

// neverReportedAfter is how long a task may sit with no supervisor PID
// before it counts as lost: a supervisor that has not written its PID by
// then never started.
const neverReportedAfter = 30 * time.Second

// lostEventTail bounds the output carried in a lost event.
const (
	lostEventTailLines = 10
	lostEventTailBytes = 8 << 10
)

// Reconcile marks a task lost when it has no result and its supervisor is
// gone: the PID is dead or a zombie, or alive but started at another time
// (the PID was reused), or no supervisor ever reported and meta.json is
// older than 30 s. It writes Result{State: Lost} and appends one `lost`
// event. The decision is re-checked under the registry lock, so when many
// processes reconcile the same task at once exactly one records it.
func (r *Registry) Reconcile(t *Task) (*Task, error) {
	if t.Result != nil || !supervisorGone(t, time.Now()) {
		return t, nil
	}
	var out *Task
	err := r.withLock(func() error {
		fresh, err := r.load(t.ID)
		if err != nil {
			return err
		}
		out = fresh
		now := time.Now()
		if fresh.Result != nil || !supervisorGone(fresh, now) {
			return nil
		}
		res := Result{
			State:    Lost,
			ExitCode: LostExitCode,
			Ended:    now,
			Reason:   LostReason,
		}
		if fi, err := os.Stat(fresh.OutputPath()); err == nil {
			res.OutputBytes = fi.Size()
		}
		if err := r.writeResultLocked(fresh.ID, res, nil); err != nil {
			return err
		}
		fresh.Result, fresh.Calls = &res, nil
		tail, _ := r.TailLines(fresh.ID, lostEventTailLines, lostEventTailBytes)
		ev := fresh.Meta.Event(EventLost)
		ev.Time, ev.DurationMS = now, fresh.Duration(now).Milliseconds()
		ev.Reason, ev.Tail = LostReason, tail
		_, err = r.appendEventLocked(ev)
		return err
	})
	if err != nil {
		return t, err
	}
	return out, nil
}

// supervisorGone reports whether the task's supervisor certainly no longer
// runs. Anything uncertain (an unreadable /proc entry, a platform without
// /proc) counts as alive: marking a live task lost cannot be undone.
func supervisorGone(t *Task, now time.Time) bool {
	if t.SupervisorPID <= 0 {
		fi, err := os.Stat(t.MetaPath())
		return err == nil && now.Sub(fi.ModTime()) > neverReportedAfter
	}
	return ProcGone(t.SupervisorPID, t.SupervisorTicks)
}

// ProcGone reports whether the process pid, started at ticks (0: not
// known), certainly no longer runs. Anything uncertain counts as running.
func ProcGone(pid int, ticks uint64) bool {
	st, err := readProcStat(pid)
	if err != nil {
		return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH)
	}
	if st.state == 'Z' || st.state == 'X' {
		return true // exited; only its parent has not collected it yet
	}
	return ticks != 0 && st.startTicks != ticks
}
