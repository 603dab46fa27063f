package watch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/url"
	"strings"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/jev"
)

// Runner checks one watcher, for the home's runner (HomeRunner), which
// decides when: on its interval or when its source says it changed.
// Everything it knows is in the store, so it can be killed at any point
// and started again.
type Runner struct {
	Store *Store
	ID    string
	Log   io.Writer // one line per check: the task's output, `bg logs`
	// Judge asks a watcher's condition; nil abstains at once (no
	// decision model is configured). See judge.go.
	Judge Judge
	// JudgeNote says what Judge asks (JudgeFor's line); logged at the
	// start of a watcher with a condition.
	JudgeNote string
	Now       func() time.Time

	// awaiting: the last tick left a match waiting for the decision model,
	// so the next check (which asks again) is an interval away even where
	// change notifications stretch the timer.
	awaiting bool

	// afterReserve, for tests: runs after a fire is reserved on disk and
	// before it is delivered (a test kills the process there).
	afterReserve func()
	// recovered: this process has checked the log for pending fires left
	// by a previous one.
	recovered bool
	// httpTimeout, for tests: a shorter fetch timeout.
	httpTimeout time.Duration
	// noNotify, for tests: behave as without inotify (poll).
	noNotify bool
	// more: the last check of a trigger link left deliveries in its inbox
	// (it takes maxDrain at a time): the next is due at once.
	more bool
	// taskID: the runner's task, recorded in the state when it starts.
	taskID string
	// kind: the watcher's kind, read at its first check (a spec does not
	// change after create).
	kind string
	// noPending: this Runner last saw the state's queue of events empty,
	// under the watcher's lock, and has queued nothing since; only a
	// Runner queues them, so its next check need not look
	// (deliverIfPending).
	noPending bool
	// seen: the records as this Runner's last update left them, so the
	// next check's first look needs no lock or read if nobody changed
	// them since (limits).
	seen seen
}

func (r *Runner) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

func (r *Runner) logf(format string, args ...any) {
	if r.Log != nil {
		fmt.Fprintf(r.Log, r.now().UTC().Format(time.RFC3339)+" "+r.ID+" "+format+"\n", args...)
	}
}

func (r *Runner) source(spec *Spec) (Source, error) {
	if spec.Kind == KindWebhook {
		return &webhookSource{dir: r.Store.Inbox(spec.ID)}, nil
	}
	if spec.Kind == KindApproval {
		return &approvalSource{inbox: r.Store.Inbox(spec.ID)}, nil
	}
	src, err := newSource(spec)
	if h, ok := src.(*httpSource); ok {
		h.timeout = r.httpTimeout
	}
	if f, ok := src.(*rssSource); ok {
		f.http.timeout = r.httpTimeout
	}
	return src, err
}

func (r *Runner) stopped() (bool, error) {
	var paused bool
	err := r.Store.read(r.ID, func(_ *Spec, st *State) error { paused = st.Paused; return nil })
	if errors.Is(err, ErrNotFound) {
		r.logf("deleted; stopping")
		return true, nil
	}
	if errors.Is(err, ErrDamaged) {
		r.logf("%v; stopping", err)
		return true, nil
	}
	if paused {
		r.logf("paused; stopping")
	}
	return paused, err
}

// Tick is one scheduled check: limits first (expiry, spent budget); then,
// if a match awaits the decision model, the model is asked again and the
// source is observed only once the match is settled; then the source, the
// check and, if it fires, the event (or, for a watcher with a condition,
// the question to the model). stop says the watcher is paused or gone and
// the runner should end.
func (r *Runner) Tick(ctx context.Context) (stop bool, err error) {
	r.awaiting, r.more = false, false
	if r.kind == "" {
		err = r.Store.read(r.ID, func(sp *Spec, _ *State) error { r.kind = sp.Kind; return nil })
		switch {
		case errors.Is(err, ErrNotFound):
			return true, nil
		case errors.Is(err, ErrDamaged):
			return r.damaged(err)
		}
	}
	if r.kind == KindWebhook {
		return r.tickWebhook(ctx)
	}
	// Each look at the state takes the watcher's lock and reads two
	// files, and each wakes the runner's threads: a quiet check looks
	// twice (limits, then Step's update), not five times as it did.
	if err := r.deliverIfPending(); err != nil {
		return false, err
	}
	spec, snap, stop, err := r.limits()
	if errors.Is(err, ErrDamaged) {
		return r.damaged(err)
	}
	if err != nil || stop {
		return stop, errors.Join(err, r.deliverPending())
	}
	if snap.Judging != nil {
		var settled bool
		stop, settled, err = r.settle(ctx)
		if err != nil || stop || !settled {
			return stop, errors.Join(err, r.deliverPending())
		}
		// Settled (it may have fired and spent the budget): look again.
		if spec, snap, stop, err = r.limits(); err != nil || stop {
			return stop, errors.Join(err, r.deliverPending())
		}
	}
	src, err := r.source(spec)
	if err != nil {
		return true, err
	}
	obs, oerr := src.Observe(ctx, &snap)
	if ctx.Err() != nil {
		return true, nil // stopping: an interrupted fetch is no observation
	}
	var judge, empty bool
	err = r.Store.updateSeen(r.ID, &r.seen, func(sp *Spec, st *State) error {
		if st.Paused { // paused while we looked
			stop = true
			return errSkipWrite
		}
		next, out := Step(sp, *st, obs, oerr, r.now())
		r.logOutcome(out)
		*st, stop = next, out.Stop
		judge = st.Judging != nil
		empty = len(st.Pending) == 0
		return nil
	})
	r.noPending = err == nil && empty
	if errors.Is(err, errSkipWrite) {
		err = nil
	}
	if errors.Is(err, ErrNotFound) {
		return true, nil
	}
	if err == nil && judge && !stop {
		// The match is on disk; the model is asked outside the lock, so
		// a slow model never holds up a pause or a delete.
		stop, _, err = r.settle(ctx)
	}
	return stop, errors.Join(err, r.deliverIfPending())
}

// damaged stops a watcher whose records cannot be read: nothing can be
// checked or recorded; it is listed as damaged, for the person to remove.
func (r *Runner) damaged(err error) (stop bool, _ error) {
	r.logf("%v; stopping", err)
	return true, nil
}

// limits applies StepLimits (expiry, the fire budget) before anything is
// looked at, and returns the spec and a copy of the state to observe with.
func (r *Runner) limits() (spec *Spec, snap State, stop bool, err error) {
	// Unchanged since this Runner's last update, and nothing to do: no
	// lock, no read (Store.look). Anything else is decided, and logged,
	// under the lock.
	quiet := r.Store.look(r.ID, &r.seen, func(sp *Spec, st *State) bool {
		if st.Paused {
			return false
		}
		if _, out := StepLimits(sp, *st, r.now(), r.Store.decisionWaiting(sp, st)); out.Stop || len(out.Log) > 0 {
			return false
		}
		spec, snap = sp, *st
		return true
	})
	if quiet {
		return spec, snap, false, nil
	}
	err = r.Store.updateSeen(r.ID, &r.seen, func(sp *Spec, st *State) error {
		spec = sp
		if st.Paused {
			stop = true
			return errSkipWrite
		}
		next, out := StepLimits(sp, *st, r.now(), r.Store.decisionWaiting(sp, st))
		r.logOutcome(out)
		if out.Stop {
			*st, stop = next, true
			r.noPending = false // it may have queued its pause
			return nil
		}
		snap = *st
		return errSkipWrite
	})
	if errors.Is(err, errSkipWrite) {
		err = nil
	}
	if errors.Is(err, ErrNotFound) {
		return nil, State{}, true, nil
	}
	return spec, snap, stop, err
}

// logOutcome writes what a step did to the task's log.
func (r *Runner) logOutcome(out Outcome) {
	for _, l := range out.Log {
		r.logf("%s", l)
	}
}

// settle asks the decision model about the match waiting in the state and
// records the verdict: holds, it fires; does not hold, it is consumed;
// ErrNotJudged, it fires marked not checked; any other failure is counted,
// and the match waits for the next check until the failures reach the
// spec's JudgeFailures, when it fires marked not checked. The ask runs
// outside the watcher's lock. settled=false: the match still waits.
func (r *Runner) settle(ctx context.Context) (stop, settled bool, err error) {
	r.noPending = false // its verdict may queue a fire
	var sp *Spec
	var j Judging
	var has, paused bool
	err = r.Store.read(r.ID, func(s *Spec, st *State) error {
		sp, paused = s, st.Paused
		if st.Judging != nil {
			j, has = *st.Judging, true
		}
		return nil
	})
	switch {
	case errors.Is(err, ErrNotFound):
		return true, false, nil
	case err != nil:
		return false, false, err
	case !has:
		return false, true, nil
	case paused:
		return true, false, nil
	}
	judge := r.Judge
	if judge == nil {
		judge = NoModel(noModelHint)
	}
	start := time.Now()
	verdict, jerr := judge(ctx, sp.Condition, j.Text)
	took := time.Since(start).Round(time.Millisecond)
	if ctx.Err() != nil {
		r.awaiting = true
		return true, false, nil // stopping: a cut-off ask is neither an answer nor a failure
	}
	err = r.Store.update(r.ID, func(sp *Spec, st *State) error {
		next, out, ok := StepVerdict(sp, *st, j, verdict, jerr, took, r.now())
		r.logOutcome(out)
		settled, stop = ok, out.Stop
		if !ok && !out.Stop {
			r.awaiting = true // the model failed; the match waits for the next check
		}
		*st = next
		return nil
	})
	if errors.Is(err, errSkipWrite) {
		err = nil
	}
	if errors.Is(err, ErrNotFound) {
		return true, false, nil
	}
	return stop, settled, err
}

// deliverPending appends queued events to the log, under the watcher's
// lock so no two processes deliver one. A process that did not queue them
// itself (a restart after a crash) first looks for their dedupe keys in
// the log: an event already there was delivered and is only settled
// (ToDeliver). A fire whose append failed is returned (StepDelivered:
// nothing went out).
func (r *Runner) deliverPending() error {
	empty := false
	err := r.Store.update(r.ID, func(sp *Spec, st *State) error {
		if len(st.Pending) == 0 {
			r.recovered = true
			empty = true
			return errSkipWrite
		}
		if r.afterReserve != nil {
			r.afterReserve()
		}
		var inLog map[string]bool
		if !r.recovered {
			inLog = map[string]bool{}
			// Streamed: a long-lived home's log is tens of megabytes.
			err := r.Store.reg.ScanEvents(0, func(e bgtasks.Event) error {
				if e.WatcherID == sp.ID {
					inLog[e.DedupeKey] = true
				}
				return nil
			})
			if err != nil {
				return err
			}
			r.recovered = true
		}
		send, already := ToDeliver(st.Pending, inLog)
		for _, key := range already {
			r.logf("event %s was delivered before a restart", key)
		}
		failed := map[string]error{}
		for _, ev := range send {
			if _, err := r.Store.reg.AppendEvent(ev); err != nil {
				failed[ev.DedupeKey] = err
			}
		}
		next, out := StepDelivered(sp, *st, failed)
		r.logOutcome(out)
		*st = next
		empty = len(next.Pending) == 0
		return nil
	})
	r.noPending = empty && (err == nil || errors.Is(err, errSkipWrite))
	if errors.Is(err, errSkipWrite) || errors.Is(err, ErrNotFound) {
		return nil
	}
	return err
}

// deliverIfPending is deliverPending, skipped when this Runner knows
// nothing is queued (noPending).
func (r *Runner) deliverIfPending() error {
	if r.noPending {
		return nil
	}
	return r.deliverPending()
}

// nextCheck is when to look next: the interval with ±10 % jitter, so many
// watchers do not fetch together; checks of a minute or more never land in
// the first minute of an hour or a half hour, when every cron job runs.
func nextCheck(now time.Time, interval time.Duration, _ bool) time.Time {
	j := time.Duration((rand.Float64()*0.2 - 0.1) * float64(interval))
	t := now.Add(interval + j)
	if interval >= time.Minute && t.Minute()%30 == 0 {
		t = t.Truncate(time.Minute).Add(time.Minute + time.Duration(rand.IntN(50)+5)*time.Second)
	}
	return t
}

// Label is the watcher in a few words, for listings, logs and events, with
// secrets out: URLs lose their credentials and query strings, and tokens,
// passwords and authorization headers in a command are redacted.
func (s *Spec) Label() string {
	l := s.rawLabel()
	if s.network() {
		l = strings.Replace(l, s.Target, safeURL(s.Target), 1)
	}
	return jev.Redact(l)
}

// safeURL is a URL as logs may show it: no user:password, no query.
func safeURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(an unparsable URL)"
	}
	if u.User == nil && u.RawQuery == "" {
		return raw
	}
	u.User = nil
	if u.RawQuery != "" {
		u.RawQuery = "…"
	}
	return u.String()
}
