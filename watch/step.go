package watch

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/jev"
)

// The watcher's policy, apart from its I/O: each step takes the spec, the
// state, what was observed (or answered) and the time, and returns the new
// state, whether the watcher stops, and what it did as log lines. The
// events a step decides on are queued in the new state's Pending — the
// outbox the runner writes before it delivers anything — so a crash
// between deciding and delivering repeats nothing (deliverPending). A step
// reads no clock, file, network or model: the Runner does, and calls
// these under the watcher's lock. step_test.go holds their table tests.

// Outcome is what a step did besides the new state.
type Outcome struct {
	// Stop: the watcher paused (or expired); its runner ends.
	Stop bool
	// Events are the events this step queued (the tail of the new state's
	// Pending), for a reader of the outcome; the state carries them.
	Events []bgtasks.Event
	// Log is what happened, one line each, for the task's log.
	Log []string
}

// stepper is one step in progress: the state it changes (a copy of the
// caller's) and what it logs.
type stepper struct {
	sp   *Spec
	st   *State
	now  time.Time
	log  []string
	from int // len(st.Pending) at the start
}

// begin copies st, slices included, so a step never writes through to its
// caller's state.
func begin(sp *Spec, st State, now time.Time) *stepper {
	st.Keys = slices.Clone(st.Keys)
	st.FireTimes = slices.Clone(st.FireTimes)
	st.Pending = slices.Clone(st.Pending)
	if st.Judging != nil {
		j := *st.Judging
		st.Judging = &j
	}
	return &stepper{sp: sp, st: &st, now: now, from: len(st.Pending)}
}

func (s *stepper) end(stop bool) (State, Outcome) {
	var evs []bgtasks.Event
	if len(s.st.Pending) > s.from {
		evs = slices.Clone(s.st.Pending[s.from:])
	}
	return *s.st, Outcome{Stop: stop, Events: evs, Log: s.log}
}

func (s *stepper) logf(format string, args ...any) {
	s.log = append(s.log, fmt.Sprintf(format, args...))
}

// StepLimits is the step before a check looks at anything: an expired
// watcher pauses (a match still waiting for the model goes out first,
// marked unjudged), one whose fire budget is spent pauses. decisionWaiting:
// an approval's decision is in its inbox, not yet fired — its expiry does
// not void a decision the person was told was recorded.
func StepLimits(sp *Spec, st State, now time.Time, decisionWaiting bool) (State, Outcome) {
	s := begin(sp, st, now)
	if sp.ExpiresAt != nil && !now.Before(*sp.ExpiresAt) && !decisionWaiting {
		if j := s.st.Judging; j != nil {
			// Matched before the expiry: news, though unjudged.
			s.commit(j.Summary+"; condition not checked (the watcher expired before the decision model answered): "+clip(sp.Condition, 200), j.Payload)
			s.st.Judging = nil
		}
		how := "without firing"
		if s.st.FiresUsed > 0 {
			how = fmt.Sprintf("after %d fires", s.st.FiresUsed)
		}
		s.pauseWith(bgtasks.EventWatchExpired, fmt.Sprintf("expired at %s %s", sp.ExpiresAt.Format(time.RFC3339), how))
		s.st.Expired = true
		return s.end(true)
	}
	if sp.MaxFires > 0 && s.st.FiresUsed >= sp.MaxFires {
		s.pauseWith(bgtasks.EventWatchPaused, fmt.Sprintf("used all %d fires (max_fires)", sp.MaxFires))
		return s.end(true)
	}
	return s.end(false)
}

// Step records one check: the source's observation, or its error (one
// wrapping ErrUnreachable is a skipped check). It baselines a watcher
// that has none yet, runs the check on a change and, if it fires, applies
// the cooldown, the hourly cap and the budget; then a watcher with a
// condition keeps the match for the decision model (Judging; StepVerdict
// settles it) and one without queues the fire.
func Step(sp *Spec, st State, obs *Observation, oerr error, now time.Time) (State, Outcome) {
	s := begin(sp, st, now)
	return s.end(s.apply(obs, oerr))
}

func (s *stepper) apply(obs *Observation, oerr error) bool {
	sp, st, now := s.sp, s.st, s.now
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
			s.logf("check %d skipped: %s (%d of %d in a row)", st.Checks, why, st.Unreachable, sp.GraceChecks)
			if st.Unreachable >= sp.GraceChecks {
				s.pauseWith(bgtasks.EventWatchPaused, fmt.Sprintf("unreachable on %d checks in a row (last: %s)", st.Unreachable, why))
				return true
			}
			return false
		}
		return s.countError(oerr)
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
			return s.countError(err)
		}
		s.logf("check %d: baseline, currently %s", st.Checks, v)
		return false
	}
	// A quiet check with nothing to say is counted (watch show, and watch
	// ls's last check), not logged: a line per check woke the runner's
	// supervisor about 30 times a line and grew the runner's log by a
	// line per check (docs/benchmarks.md, "Idle watchers").
	if obs.Quiet {
		st.QuietChecks++
		if obs.Payload != "" {
			s.logf("check %d: quiet%s", st.Checks, suffix(obs.Payload))
		}
		return false
	}
	if sp.Kind == KindApproval {
		return s.applyDecision(obs)
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
		stop := s.fire(match{summary: summary, payload: obs.Payload, text: summary + "\n\n" + obs.Payload, terminal: obs.Terminal})
		if obs.Terminal && !st.Paused && st.Judging == nil { // a judged match pauses once settled
			s.pauseWith(bgtasks.EventWatchPaused, "the command reported a terminal outcome")
			return true
		}
		return stop
	}
	h := hashText(obs.Text)
	if h == st.Hash {
		st.QuietChecks++ // not logged, as a quiet check above
		return false
	}
	st.Hash = h
	v, err := evaluate(sp, obs, st.Keys)
	if err != nil {
		return s.countError(err)
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
		s.logf("check %d: changed, check %s does not fire (%s)", st.Checks, sp.Check, v.value)
		return false
	}
	return s.fire(match{summary: summary, payload: payload, text: summary + "\n\n" + content})
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
func (s *stepper) countError(err error) bool {
	st := s.st
	why := jev.Redact(err.Error())
	st.LastError = why
	st.Errors++
	s.logf("check %d failed: %s (%d of %d in a row)", st.Checks, why, st.Errors, s.sp.MaxErrors)
	if st.Errors >= s.sp.MaxErrors {
		s.pauseWith(bgtasks.EventWatchPaused, fmt.Sprintf("%d failed checks in a row (last: %s)", st.Errors, why))
		return true
	}
	return false
}

// fire applies cooldown, the hourly cap and the budget; then a watcher
// with a condition records the match for the decision model (the runner
// asks it outside the lock, StepVerdict records the answer), and one
// without reserves the fire.
func (s *stepper) fire(m match) bool {
	sp, st, now := s.sp, s.st, s.now
	if st.LastFire != nil && now.Before(st.LastFire.Add(sp.Cooldown)) {
		s.logf("check %d: %s, inside the cooldown (until %s): state advanced, nothing fired", st.Checks, m.summary, st.LastFire.Add(sp.Cooldown).UTC().Format(time.RFC3339))
		return false
	}
	st.FireTimes = slices.DeleteFunc(st.FireTimes, func(t time.Time) bool { return now.Sub(t) >= time.Hour })
	if len(st.FireTimes) >= sp.MaxWakesPerHour {
		s.pauseWith(bgtasks.EventWatchPaused, fmt.Sprintf("more than %d wakes in an hour (max_wakes_per_hour); the last change was not reported", sp.MaxWakesPerHour))
		return true
	}
	if sp.MaxFires > 0 && st.FiresUsed >= sp.MaxFires {
		s.pauseWith(bgtasks.EventWatchPaused, fmt.Sprintf("used all %d fires (max_fires)", sp.MaxFires))
		return true
	}
	if sp.Condition != "" {
		// Redacted before it is kept: the payload is redacted again,
		// harmlessly, when the fire is queued.
		st.Judging = &Judging{Summary: m.summary, Payload: jev.Redact(m.payload), Text: jev.ConditionText(m.text),
			Terminal: m.terminal, Check: st.Checks, Since: now}
		s.logf("check %d: %s; judging the condition", st.Checks, m.summary)
		return false
	}
	return s.commit(m.summary, m.payload)
}

// commit reserves a fire: it is counted and queued in the state, which the
// caller writes before anything is delivered. A spent budget pauses the
// watcher, unless it is already paused for another reason.
func (s *stepper) commit(summary, payload string) bool {
	sp, st, now := s.sp, s.st, s.now
	st.FiresUsed++
	st.FireTimes = append(st.FireTimes, now)
	st.LastFire = &now
	ev := sp.event(bgtasks.EventWatchFired, summary)
	ev.Payload = untrusted(payload)
	ev.DedupeKey = sp.ID + ":fire:" + strconv.Itoa(st.FiresUsed)
	st.Pending = append(st.Pending, ev)
	s.logf("check %d: fired (%d of %d): %s", st.Checks, st.FiresUsed, sp.MaxFires, summary)
	if sp.MaxFires > 0 && st.FiresUsed >= sp.MaxFires && !st.Paused {
		s.pauseWith(bgtasks.EventWatchPaused, fmt.Sprintf("used all %d fires (max_fires)", sp.MaxFires))
		return true
	}
	return st.Paused
}

// event is an event of the watcher's, with what every one carries.
func (s *Spec) event(kind, reason string) bgtasks.Event {
	return bgtasks.Event{Kind: kind, TaskID: s.ID, Command: s.Label(), Reason: reason,
		Owner: s.Owner, Project: s.Project, WatcherID: s.ID}
}

// pauseWith pauses and queues the one event that says why.
func (s *stepper) pauseWith(kind, reason string) {
	pause(s.st, reason, s.now)
	ev := s.sp.event(kind, reason)
	ev.DedupeKey = fmt.Sprintf("%s:%s:%d", s.sp.ID, kind, s.now.UnixNano())
	s.st.Pending = append(s.st.Pending, ev)
	s.logf("paused: %s", reason)
}

// applyDecision turns an approval's decision into the watcher's one event
// and ends the watcher (paused, reason "decided: …", without a second
// event: the decision is the news).
func (s *stepper) applyDecision(obs *Observation) bool {
	sp, st, now := s.sp, s.st, s.now
	var d Decision
	if err := json.Unmarshal([]byte(obs.Payload), &d); err != nil || d.Choice == "" {
		return s.countError(fmt.Errorf("the decision file is unreadable: %v", err))
	}
	if st.FiresUsed > 0 { // fired before a restart; only end
		pause(st, "decided: "+d.Choice, now)
		return true
	}
	question := ""
	if sp.Approval != nil {
		question = clip(sp.Approval.Question, 200)
	}
	st.FiresUsed++
	st.FireTimes = append(st.FireTimes, now)
	st.LastFire = &now
	st.Value = "decided: " + d.Choice
	ev := sp.event(bgtasks.EventWatchFired, fmt.Sprintf("a person decided %q through the approval link — question: %q", d.Choice, question))
	ev.Decision, ev.From = d.Choice, FromApprovalLink
	if d.Comment != "" {
		ev.Comment = untrustedComment(d.Comment)
	}
	ev.DedupeKey = sp.ID + ":decision"
	st.Pending = append(st.Pending, ev)
	pause(st, "decided: "+d.Choice+" ("+FromApprovalLink+")", now)
	s.logf("check %d: decided %q; the watcher ends", st.Checks, d.Choice)
	return true
}

// StepVerdict records the decision model's answer on the match j that
// waited in the state, asked in took: holds, it fires; does not hold, it
// is consumed; ErrNotJudged, it fires marked not checked; any other
// failure is counted, and the match waits for the next check until the
// failures reach the spec's JudgeFailures, when it fires marked not
// checked. settled=false: the match still waits (for the next check, or,
// with Stop, for a resume: the watcher was paused while the model was
// asked). A match settled by someone else meanwhile (the state holds
// another one, or none) is settled, and the state is returned as it was.
func StepVerdict(sp *Spec, st State, j Judging, v Judgment, jerr error, took time.Duration, now time.Time) (next State, out Outcome, settled bool) {
	s := begin(sp, st, now)
	switch {
	case s.st.Judging == nil || s.st.Judging.Check != j.Check || !s.st.Judging.Since.Equal(j.Since):
		next, out = s.end(false)
		return next, out, true
	case s.st.Paused: // paused while the model was asked: the match waits for resume
		next, out = s.end(true)
		return next, out, false
	}
	cond := clip(sp.Condition, 200)
	switch {
	case jerr == nil && v.Holds:
		s.logf("check %d: the condition holds (%s, asked in %v)", j.Check, orElse(v.Why, "no reason given"), took)
		s.commit(j.Summary+"; condition holds: "+cond, withWhy(j.Payload, v.Why))
	case jerr == nil:
		s.logf("check %d: %s, but the condition does not hold (%s, asked in %v): nothing fired", j.Check, j.Summary, orElse(v.Why, "no reason given"), took)
	case errors.Is(jerr, ErrNotJudged):
		s.logf("check %d: %v", j.Check, jerr)
		s.commit(j.Summary+"; "+jerr.Error()+"; condition: "+cond, j.Payload)
	default:
		why := clip(jev.Redact(jerr.Error()), 300)
		s.st.Judging.Failures++
		s.st.Judging.LastError = why
		n, limit := s.st.Judging.Failures, sp.judgeFailures()
		if n < limit {
			s.logf("check %d: the decision model failed (%d of %d in a row, after %v): %s; the match waits for the next check", j.Check, n, limit, took, why)
			next, out = s.end(false)
			return next, out, false
		}
		s.logf("check %d: the decision model failed %d times in a row (last: %s); firing unchecked", j.Check, n, why)
		s.commit(fmt.Sprintf("%s; condition not checked (the decision model failed %d times: %s): %s", j.Summary, n, clip(why, 200), cond), j.Payload)
	}
	s.st.Judging = nil
	if j.Terminal && !s.st.Paused {
		s.pauseWith(bgtasks.EventWatchPaused, "the command reported a terminal outcome")
	}
	next, out = s.end(s.st.Paused)
	return next, out, true
}

// withWhy adds the model's reason to a fire's payload: it is a model's
// words about untrusted text, so it is shown as untrusted too.
func withWhy(payload, why string) string {
	if why == "" {
		return payload
	}
	return "[the decision model's reason: " + why + "]\n" + payload
}

// stepDeliveries is a trigger link's check: every delivery the receiver
// accepted (ds, oldest first; a key already in the state was handled
// before a restart and is skipped — the dedupe of deliveries) is checked
// on its own and queued if it fits; then, once the inbox is drained, the
// expiry and max_hits (hits: the deliveries accepted) close the link.
func stepDeliveries(sp *Spec, st State, ds []inboxDelivery, oerr error, hits int, now time.Time) (State, Outcome) {
	s := begin(sp, st, now)
	s.st.Checks++
	s.st.LastCheck = &now
	if oerr != nil {
		s.st.LastError = oerr.Error()
		s.logf("check %d failed: %v", s.st.Checks, oerr)
		return s.end(false)
	}
	s.st.LastError = ""
	for _, d := range ds {
		if slices.Contains(s.st.Keys, d.Key) {
			continue // handled before a restart; only its file is left
		}
		s.applyDelivery(d)
		s.st.Keys = append(s.st.Keys, d.Key)
	}
	if len(s.st.Keys) > maxKeys {
		s.st.Keys = s.st.Keys[len(s.st.Keys)-maxKeys:]
	}
	if len(ds) == maxDrain {
		return s.end(false) // more to drain before the limits apply
	}
	switch {
	case sp.ExpiresAt != nil && !now.Before(*sp.ExpiresAt):
		reason := fmt.Sprintf("expired at %s after %d of %d deliveries", sp.ExpiresAt.Format(time.RFC3339), hits, sp.Link.MaxHits)
		if hits == 0 {
			reason = fmt.Sprintf("expired at %s without a delivery", sp.ExpiresAt.Format(time.RFC3339))
		}
		s.pauseWith(bgtasks.EventWatchExpired, reason)
		s.st.Expired = true
		return s.end(true)
	case hits >= sp.Link.MaxHits:
		s.pauseWith(bgtasks.EventWatchPaused, fmt.Sprintf("received all %d deliveries (max_hits); the link is closed", sp.Link.MaxHits))
		return s.end(true)
	}
	return s.end(false)
}

// applyDelivery runs the check on one delivery's body and queues its
// event if it fits. Each delivery is judged on its own, not against the
// one before: a second failed build is news too, so checks are not
// edge-triggered here. One that lacks what the check reads (the path, a
// number) says so once; later misfits are only logged.
func (s *stepper) applyDelivery(d inboxDelivery) {
	sp, st := s.sp, s.st
	text, decoded := normalise(d.Item.Body, "json")
	if d.Item.Body == nil {
		text, decoded = normalise([]byte(d.Item.Text), d.Item.ContentType)
	}
	label := fmt.Sprintf("delivery %d", d.Item.Seq)
	if d.Item.Event != "" {
		label += " (" + d.Item.Event + ")"
	}
	v, err := evaluate(sp, &Observation{Text: text, JSON: decoded}, nil)
	if err != nil {
		why := fmt.Sprintf("%s lacks what the check reads (%v)", label, err)
		if st.MisfitTold {
			s.logf("check %d: %s; told once already, not reported", st.Checks, why)
			return
		}
		st.MisfitTold = true
		s.queueDelivery(d, why+"; later deliveries that lack it are not reported", text)
		return
	}
	if !v.holds {
		s.logf("check %d: %s does not fit (%s %s: %s)", st.Checks, label, sp.Check, sp.Value, v.value)
		return
	}
	summary := label
	if sp.Check != CheckChanged {
		summary += fmt.Sprintf(": %s %s (%s)", sp.Check, sp.Value, v.value)
	}
	s.queueDelivery(d, summary, text)
}

// queueDelivery reserves a delivery's event: counted and queued with the
// delivery's own dedupe key in the state write that records its key.
func (s *stepper) queueDelivery(d inboxDelivery, summary, payload string) {
	st, now := s.st, s.now
	st.FiresUsed++
	st.LastFire = &now
	ev := s.sp.event(bgtasks.EventWatchFired, summary)
	ev.Payload = untrusted(clip(payload, maxPayload))
	ev.DedupeKey = hookKey(s.sp.ID, d.Key)
	st.Pending = append(st.Pending, ev)
	s.logf("check %d: fired: %s", st.Checks, summary)
}

// hookKey is the dedupe key of the event a delivery makes.
func hookKey(id, key string) string { return id + ":hook:" + key }

// StepDelivered settles the outbox after the runner tried to append each
// queued event to the log: failed holds the appends that failed, by
// dedupe key. A fire that did not go out is returned to the budget, and a
// trigger link's delivery whose event did not go out is forgotten, so it
// is handled again from the inbox at the next check.
func StepDelivered(sp *Spec, st State, failed map[string]error) (State, Outcome) {
	s := begin(sp, st, time.Time{})
	for _, ev := range s.st.Pending {
		err, ok := failed[ev.DedupeKey]
		if !ok {
			continue
		}
		s.logf("delivery of %s failed: %v", ev.DedupeKey, err)
		if ev.Kind == bgtasks.EventWatchFired {
			s.st.FiresUsed-- // returned: nothing went out
		}
		if key, ok := strings.CutPrefix(ev.DedupeKey, sp.ID+":hook:"); ok {
			s.st.Keys = slices.DeleteFunc(s.st.Keys, func(k string) bool { return k == key })
		}
		s.st.LastError = "delivery failed: " + err.Error()
	}
	s.st.Pending = nil
	s.from = 0
	return s.end(false)
}

// ToDeliver is the queued events that are not in the log yet: inLog holds
// the dedupe keys the log has of this watcher (nil: not looked, all go).
func ToDeliver(pending []bgtasks.Event, inLog map[string]bool) (send []bgtasks.Event, already []string) {
	for _, ev := range pending {
		if inLog[ev.DedupeKey] {
			already = append(already, ev.DedupeKey)
			continue
		}
		send = append(send, ev)
	}
	return send, already
}
