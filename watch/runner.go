package watch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/jev"
)

// Runner is the loop one watcher's background task runs (`hangdog __watch
// ID`): it waits for the interval or for the source to say it changed,
// checks, and fires. Everything it knows is in the store, so it can be
// killed at any point and started again.
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

// Run checks until the watcher is paused, deleted or expired, or ctx ends.
func (r *Runner) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the inotify goroutines
	var spec *Spec
	if err := r.Store.read(r.ID, func(sp *Spec, _ *State) error { spec = sp; return nil }); err != nil {
		return err
	}
	src, err := r.source(spec)
	if err != nil {
		return err
	}
	var changes <-chan struct{}
	if n, ok := src.(Notifier); ok && !r.noNotify {
		if changes, err = n.Changes(ctx); err != nil {
			r.logf("no change notifications (%v): polling every %v", err, spec.Interval)
		}
	}
	control := r.controlChanges(ctx)
	if control == nil {
		// No inotify to spare: look for a pause or a delete every few
		// seconds instead.
		tick := time.NewTicker(3 * time.Second)
		defer tick.Stop()
		relay := make(chan struct{}, 1)
		go func() { // ends with ctx
			for {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
					select {
					case relay <- struct{}{}:
					default:
					}
				}
			}
		}()
		control = relay
	}
	// With change notifications, the timer is only a safety net.
	every := spec.Interval
	if changes != nil {
		every = max(10*spec.Interval, 5*time.Minute)
	}
	if err := r.deliverPending(); err != nil {
		return err
	}
	if stop, err := r.stopped(); stop || err != nil {
		return err // paused before this task got going
	}
	r.logf("watching %s", spec.Label())
	if spec.Condition != "" && r.JudgeNote != "" {
		r.logf("%s", r.JudgeNote)
	}
	due := nextCheck(r.now(), spec.Interval, spec.network())
	var lastCheck time.Time
	for {
		wait := time.Until(due)
		if spec.ExpiresAt != nil {
			wait = min(wait, time.Until(*spec.ExpiresAt)+10*time.Millisecond)
		}
		timer := time.NewTimer(max(wait, 0))
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil
		case <-control:
			timer.Stop()
			if stop, err := r.stopped(); stop || err != nil {
				return err
			}
			continue
		case <-changes:
			timer.Stop()
			// A burst of writes is one check; checks stay an interval apart.
			if gap := spec.Interval - time.Since(lastCheck); gap > 0 {
				select {
				case <-ctx.Done():
					return nil
				case <-time.After(gap):
				}
			}
		case <-timer.C:
		}
		lastCheck = time.Now()
		stop, err := r.Tick(ctx)
		if err != nil {
			r.logf("error: %v", err)
		}
		if stop {
			return nil
		}
		next := every
		if r.awaiting {
			next = spec.Interval
		}
		due = nextCheck(r.now(), next, spec.network())
	}
}

// controlChanges wakes the loop when someone else changes the watcher's
// files (pause, resume, delete), so a paused watcher's task ends at once
// rather than at its next check. Its goroutine ends with ctx.
func (r *Runner) controlChanges(ctx context.Context) <-chan struct{} {
	dir := r.Store.watcherDir(r.ID)
	ch, err := watchDir(ctx, dir, func(ev fsnotify.Event) bool {
		// state.json replaced (pause, resume), or the directory itself
		// moved or removed (delete renames it first, and fsnotify drops a
		// watch whose directory moved).
		self := filepath.Clean(ev.Name) == filepath.Clean(dir)
		return filepath.Base(ev.Name) == "state.json" || self || ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)
	})
	if err != nil {
		return nil
	}
	return ch
}

func (r *Runner) stopped() (bool, error) {
	var paused bool
	err := r.Store.read(r.ID, func(_ *Spec, st *State) error { paused = st.Paused; return nil })
	if errors.Is(err, ErrNotFound) {
		r.logf("deleted; stopping")
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
	r.awaiting = false
	var kind string
	if err := r.Store.read(r.ID, func(sp *Spec, _ *State) error { kind = sp.Kind; return nil }); errors.Is(err, ErrNotFound) {
		return true, nil
	}
	if kind == KindWebhook {
		return r.tickWebhook(ctx)
	}
	if err := r.deliverPending(); err != nil {
		return false, err
	}
	spec, snap, stop, err := r.limits()
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
	var judge bool
	err = r.Store.update(r.ID, func(sp *Spec, st *State) error {
		if st.Paused { // paused while we looked
			stop = true
			return errSkipWrite
		}
		stop = r.apply(sp, st, obs, oerr)
		judge = st.Judging != nil
		return nil
	})
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
	return stop, errors.Join(err, r.deliverPending())
}

// limits checks expiry and the fire budget before anything is looked at,
// pausing the watcher when either is spent, and returns the spec and a
// copy of the state to observe with.
func (r *Runner) limits() (spec *Spec, snap State, stop bool, err error) {
	err = r.Store.update(r.ID, func(sp *Spec, st *State) error {
		spec = sp
		if st.Paused {
			stop = true
			return errSkipWrite
		}
		now := r.now()
		if sp.ExpiresAt != nil && !now.Before(*sp.ExpiresAt) && !r.Store.decisionWaiting(sp, st) {
			if j := st.Judging; j != nil {
				// Matched before the expiry: news, though unjudged.
				r.commit(sp, st, j.Summary+"; condition not checked (the watcher expired before the decision model answered): "+clip(sp.Condition, 200), j.Payload, now)
				st.Judging = nil
			}
			how := "without firing"
			if st.FiresUsed > 0 {
				how = fmt.Sprintf("after %d fires", st.FiresUsed)
			}
			reason := fmt.Sprintf("expired at %s %s", sp.ExpiresAt.Format(time.RFC3339), how)
			r.pauseWith(sp, st, bgtasks.EventWatchExpired, reason, now)
			st.Expired = true
			stop = true
			return nil
		}
		if sp.MaxFires > 0 && st.FiresUsed >= sp.MaxFires {
			r.pauseWith(sp, st, bgtasks.EventWatchPaused, fmt.Sprintf("used all %d fires (max_fires)", sp.MaxFires), now)
			stop = true
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

// settle asks the decision model about the match waiting in the state and
// records the verdict: holds, it fires; does not hold, it is consumed;
// ErrNotJudged, it fires marked not checked; any other failure is counted,
// and the match waits for the next check until the failures reach the
// spec's JudgeFailures, when it fires marked not checked. The ask runs
// outside the watcher's lock. settled=false: the match still waits.
func (r *Runner) settle(ctx context.Context) (stop, settled bool, err error) {
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
		if st.Judging == nil || st.Judging.Check != j.Check || !st.Judging.Since.Equal(j.Since) {
			settled = true // settled by someone else meanwhile
			return errSkipWrite
		}
		if st.Paused { // paused while we asked: the match waits for resume
			stop = true
			return errSkipWrite
		}
		now := r.now()
		cond := clip(sp.Condition, 200)
		switch {
		case jerr == nil && verdict.Holds:
			r.logf("check %d: the condition holds (%s, asked in %v)", j.Check, orElse(verdict.Why, "no reason given"), took)
			r.commit(sp, st, j.Summary+"; condition holds: "+cond, withWhy(j.Payload, verdict.Why), now)
		case jerr == nil:
			r.logf("check %d: %s, but the condition does not hold (%s, asked in %v): nothing fired", j.Check, j.Summary, orElse(verdict.Why, "no reason given"), took)
		case errors.Is(jerr, ErrNotJudged):
			r.logf("check %d: %v", j.Check, jerr)
			r.commit(sp, st, j.Summary+"; "+jerr.Error()+"; condition: "+cond, j.Payload, now)
		default:
			why := clip(jev.Redact(jerr.Error()), 300)
			st.Judging.Failures++
			st.Judging.LastError = why
			n, limit := st.Judging.Failures, sp.judgeFailures()
			if n < limit {
				r.logf("check %d: the decision model failed (%d of %d in a row, after %v): %s; the match waits for the next check", j.Check, n, limit, took, why)
				r.awaiting = true
				return nil
			}
			r.logf("check %d: the decision model failed %d times in a row (last: %s); firing unchecked", j.Check, n, why)
			r.commit(sp, st, fmt.Sprintf("%s; condition not checked (the decision model failed %d times: %s): %s", j.Summary, n, clip(why, 200), cond), j.Payload, now)
		}
		settled = true
		st.Judging = nil
		if j.Terminal && !st.Paused {
			r.pauseWith(sp, st, bgtasks.EventWatchPaused, "the command reported a terminal outcome", now)
		}
		stop = st.Paused
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

// withWhy adds the model's reason to a fire's payload: it is a model's
// words about untrusted text, so it is shown as untrusted too.
func withWhy(payload, why string) string {
	if why == "" {
		return payload
	}
	return "[the decision model's reason: " + why + "]\n" + payload
}

// apply records an observation in the state and reserves any fire; it
// reports whether the watcher stopped.
func (r *Runner) apply(sp *Spec, st *State, obs *Observation, oerr error) bool {
	now := r.now()
	st.Checks++
	st.LastCheck = &now
	if oerr != nil {
		// What a source's error quotes (a command's stderr) may hold a
		// secret: redacted before it is kept, logged or told.
		why := jev.Redact(oerr.Error())
		st.LastError = why
		if errors.Is(oerr, ErrUnreachable) {
			st.Skipped++
			st.Unreachable++
			r.logf("check %d skipped: %s (%d of %d in a row)", st.Checks, why, st.Unreachable, sp.GraceChecks)
			if st.Unreachable >= sp.GraceChecks {
				r.pauseWith(sp, st, bgtasks.EventWatchPaused, fmt.Sprintf("unreachable on %d checks in a row (last: %s)", st.Unreachable, why), now)
				return true
			}
			return false
		}
		return r.countError(sp, st, oerr, now)
	}
	st.Unreachable, st.Errors, st.LastError = 0, 0, ""
	if obs.ETag != "" || obs.LastModified != "" || !obs.Quiet {
		st.ETag, st.LastModified = obs.ETag, obs.LastModified
	}
	if obs.Cursor != nil {
		st.Cursor = obs.Cursor
	}
	if !st.Baselined {
		if obs.Quiet {
			st.QuietChecks++
			return false
		}
		v, err := baseline(sp, st, obs)
		if err != nil {
			return r.countError(sp, st, err, now)
		}
		r.logf("check %d: baseline, currently %s", st.Checks, v)
		return false
	}
	if obs.Quiet {
		st.QuietChecks++
		r.logf("check %d: quiet%s", st.Checks, suffix(obs.Payload))
		return false
	}
	if sp.Kind == KindApproval {
		return r.applyDecision(sp, st, obs, now)
	}
	if sp.Kind == KindCommand {
		if !obs.Fire {
			st.QuietChecks++
			return false
		}
		outcome := "activity"
		if obs.Terminal {
			outcome = "terminal"
		}
		summary := "command reported " + outcome
		stop := r.fire(sp, st, match{summary: summary, payload: obs.Payload, text: summary + "\n\n" + obs.Payload, terminal: obs.Terminal}, now)
		if obs.Terminal && !st.Paused && st.Judging == nil { // a judged match pauses once settled
			r.pauseWith(sp, st, bgtasks.EventWatchPaused, "the command reported a terminal outcome", now)
			return true
		}
		return stop
	}
	h := hashText(obs.Text)
	if h == st.Hash {
		st.QuietChecks++
		r.logf("check %d: unchanged", st.Checks)
		return false
	}
	st.Hash = h
	v, err := evaluate(sp, obs, st.Keys)
	if err != nil {
		return r.countError(sp, st, err, now)
	}
	prev := st.Value
	st.Value = v.value
	fires := v.holds
	if edgeTriggered(sp.Check) {
		fires = v.holds && !st.Holds
		st.Holds = v.holds
	}
	var summary, payload string
	content := obs.Text // what the condition is asked about, with the summary
	switch sp.Check {
	case CheckNew:
		var lines []string
		for _, it := range v.fresh {
			st.Keys = append(st.Keys, it.Key)
			lines = append(lines, strings.TrimSpace(it.Title+" "+it.Link+" ("+it.Key+")"))
		}
		if len(st.Keys) > maxKeys {
			st.Keys = st.Keys[len(st.Keys)-maxKeys:]
		}
		summary = fmt.Sprintf("%d new item(s)", len(v.fresh))
		payload = strings.Join(lines, "\n")
		content = payload
	case CheckChanged:
		summary = "changed"
		if sp.Kind == KindProcess {
			summary = "process is now " + obs.Text
		}
		payload = orElse(obs.Payload, clip(obs.Text, maxPayload))
	default:
		summary = fmt.Sprintf("%s %s: now %s (was %s)", sp.Check, sp.Value, v.value, orElse(prev, "unknown"))
		payload = v.value
	}
	if !fires {
		r.logf("check %d: changed, check %s does not fire (%s)", st.Checks, sp.Check, v.value)
		return false
	}
	return r.fire(sp, st, match{summary: summary, payload: payload, text: summary + "\n\n" + content}, now)
}

// match is what a check that fired found: the event's summary and payload,
// and the text a condition is asked about.
type match struct {
	summary, payload, text string
	terminal               bool // a command's terminal outcome
}

func suffix(s string) string {
	if s == "" {
		return ""
	}
	return " (" + clip(s, 200) + ")"
}

// countError counts an error toward the auto-pause.
func (r *Runner) countError(sp *Spec, st *State, err error, now time.Time) bool {
	why := jev.Redact(err.Error())
	st.LastError = why
	st.Errors++
	r.logf("check %d failed: %s (%d of %d in a row)", st.Checks, why, st.Errors, sp.MaxErrors)
	if st.Errors >= sp.MaxErrors {
		r.pauseWith(sp, st, bgtasks.EventWatchPaused, fmt.Sprintf("%d failed checks in a row (last: %s)", st.Errors, why), now)
		return true
	}
	return false
}

// fire applies cooldown, the hourly cap and the budget; then a watcher
// with a condition records the match for the decision model (settle asks
// it, outside this lock), and one without reserves the fire. Either is in
// the state the caller writes before anything is asked or delivered.
func (r *Runner) fire(sp *Spec, st *State, m match, now time.Time) bool {
	if st.LastFire != nil && now.Before(st.LastFire.Add(sp.Cooldown)) {
		r.logf("check %d: %s, inside the cooldown (until %s): state advanced, nothing fired", st.Checks, m.summary, st.LastFire.Add(sp.Cooldown).UTC().Format(time.RFC3339))
		return false
	}
	st.FireTimes = slices.DeleteFunc(st.FireTimes, func(t time.Time) bool { return now.Sub(t) >= time.Hour })
	if len(st.FireTimes) >= sp.MaxWakesPerHour {
		r.pauseWith(sp, st, bgtasks.EventWatchPaused, fmt.Sprintf("more than %d wakes in an hour (max_wakes_per_hour); the last change was not reported", sp.MaxWakesPerHour), now)
		return true
	}
	if sp.MaxFires > 0 && st.FiresUsed >= sp.MaxFires {
		r.pauseWith(sp, st, bgtasks.EventWatchPaused, fmt.Sprintf("used all %d fires (max_fires)", sp.MaxFires), now)
		return true
	}
	if sp.Condition != "" {
		// Redacted before it is kept: the payload is redacted again,
		// harmlessly, when the fire is queued.
		st.Judging = &Judging{Summary: m.summary, Payload: jev.Redact(m.payload), Text: jev.ConditionText(m.text),
			Terminal: m.terminal, Check: st.Checks, Since: now}
		r.logf("check %d: %s; judging the condition", st.Checks, m.summary)
		return false
	}
	return r.commit(sp, st, m.summary, m.payload, now)
}

// commit reserves a fire: it is counted and queued in the state, which the
// caller writes before anything is delivered. A spent budget pauses the
// watcher, unless it is already paused for another reason.
func (r *Runner) commit(sp *Spec, st *State, summary, payload string, now time.Time) bool {
	st.FiresUsed++
	st.FireTimes = append(st.FireTimes, now)
	st.LastFire = &now
	ev := r.event(sp, bgtasks.EventWatchFired, summary)
	ev.Payload = untrusted(payload)
	ev.DedupeKey = sp.ID + ":fire:" + strconv.Itoa(st.FiresUsed)
	st.Pending = append(st.Pending, ev)
	r.logf("check %d: fired (%d of %d): %s", st.Checks, st.FiresUsed, sp.MaxFires, summary)
	if sp.MaxFires > 0 && st.FiresUsed >= sp.MaxFires && !st.Paused {
		r.pauseWith(sp, st, bgtasks.EventWatchPaused, fmt.Sprintf("used all %d fires (max_fires)", sp.MaxFires), now)
		return true
	}
	return st.Paused
}

func (r *Runner) event(sp *Spec, kind, reason string) bgtasks.Event {
	return bgtasks.Event{Kind: kind, TaskID: sp.ID, Command: sp.Label(), Reason: reason,
		Owner: sp.Owner, Project: sp.Project, WatcherID: sp.ID}
}

// pauseWith pauses and queues the one event that says why.
func (r *Runner) pauseWith(sp *Spec, st *State, kind, reason string, now time.Time) {
	pause(st, reason, now)
	ev := r.event(sp, kind, reason)
	ev.DedupeKey = fmt.Sprintf("%s:%s:%d", sp.ID, kind, now.UnixNano())
	st.Pending = append(st.Pending, ev)
	r.logf("paused: %s", reason)
}

// deliverPending appends queued events to the log, under the watcher's
// lock so no two processes deliver one. A process that did not queue them
// itself (a restart after a crash) first looks for their dedupe keys in
// the log: an event already there was delivered and is only settled. A
// fire whose append failed is returned (nothing went out).
func (r *Runner) deliverPending() error {
	err := r.Store.update(r.ID, func(sp *Spec, st *State) error {
		if len(st.Pending) == 0 {
			r.recovered = true
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
		for _, ev := range st.Pending {
			if inLog[ev.DedupeKey] {
				r.logf("event %s was delivered before a restart", ev.DedupeKey)
				continue
			}
			if _, err := r.Store.reg.AppendEvent(ev); err != nil {
				r.logf("delivery of %s failed: %v", ev.DedupeKey, err)
				if ev.Kind == bgtasks.EventWatchFired {
					st.FiresUsed-- // returned: nothing went out
				}
				// A delivery whose event did not go out stays in the
				// inbox and is handled again at the next check.
				if key, ok := strings.CutPrefix(ev.DedupeKey, sp.ID+":hook:"); ok {
					st.Keys = slices.DeleteFunc(st.Keys, func(k string) bool { return k == key })
				}
				st.LastError = "delivery failed: " + err.Error()
			}
		}
		st.Pending = nil
		return nil
	})
	if errors.Is(err, errSkipWrite) || errors.Is(err, ErrNotFound) {
		return nil
	}
	return err
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
