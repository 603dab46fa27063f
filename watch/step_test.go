package watch

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
)

// The watcher's policy as table tests: spec, state, observation and time
// in; the new state, the events queued and whether it stops out. No file,
// clock, network or model is involved.

var t0 = time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)

func stepSpec(mod func(*Spec)) *Spec {
	sp := &Spec{ID: "w1", Kind: KindFile, Target: "/tmp/x", Check: CheckChanged, Interval: time.Second,
		MaxFires: 20, MaxWakesPerHour: 12, GraceChecks: 2, MaxErrors: 3, Owner: "s1"}
	if mod != nil {
		mod(sp)
	}
	return sp
}

// baselined is the state after a baseline of text.
func baselined(text string, mod func(*State)) State {
	st := State{Baselined: true, Hash: hashText(text), Value: text, Checks: 1}
	if mod != nil {
		mod(&st)
	}
	return st
}

func kinds(evs []bgtasks.Event) string {
	var k []string
	for _, e := range evs {
		k = append(k, e.Kind+"("+e.DedupeKey+")")
	}
	return strings.Join(k, " ")
}

func TestStep(t *testing.T) {
	at := func(d time.Duration) *time.Time { x := t0.Add(d); return &x }
	cases := []struct {
		name   string
		spec   *Spec
		st     State
		obs    *Observation
		err    error
		stop   bool
		events string // kinds and dedupe keys of the queued events
		check  func(t *testing.T, st State)
	}{
		{name: "the first observation is the baseline and never fires", spec: stepSpec(nil), st: State{},
			obs: &Observation{Text: "one"}, check: func(t *testing.T, st State) {
				if !st.Baselined || st.Value != "one" || st.FiresUsed != 0 {
					t.Errorf("state %+v", st)
				}
			}},
		{name: "unchanged content is a quiet check", spec: stepSpec(nil), st: baselined("one", nil),
			obs: &Observation{Text: "one"}, check: func(t *testing.T, st State) {
				if st.QuietChecks != 1 || st.Checks != 2 {
					t.Errorf("state %+v", st)
				}
			}},
		{name: "a change fires once, counted and queued", spec: stepSpec(nil), st: baselined("one", nil),
			obs: &Observation{Text: "two"}, events: "watch_fired(w1:fire:1)", check: func(t *testing.T, st State) {
				if st.FiresUsed != 1 || st.LastFire == nil || !st.LastFire.Equal(t0) || len(st.FireTimes) != 1 {
					t.Errorf("state %+v", st)
				}
				if p := st.Pending[0].Payload; !strings.Contains(p, "two") || !strings.Contains(p, "untrusted") {
					t.Errorf("payload %q: want the content, marked untrusted", p)
				}
			}},
		{name: "inside the cooldown the state advances and nothing fires", spec: stepSpec(func(sp *Spec) { sp.Cooldown = time.Hour }),
			st: baselined("one", func(st *State) { st.LastFire = at(-time.Minute) }), obs: &Observation{Text: "two"},
			check: func(t *testing.T, st State) {
				if st.Hash != hashText("two") || st.FiresUsed != 0 {
					t.Errorf("state %+v", st)
				}
			}},
		{name: "more wakes than the hourly cap pause", spec: stepSpec(func(sp *Spec) { sp.MaxWakesPerHour = 2 }),
			st:  baselined("one", func(st *State) { st.FireTimes = []time.Time{t0.Add(-30 * time.Minute), t0.Add(-time.Minute)} }),
			obs: &Observation{Text: "two"}, stop: true, events: fmt.Sprintf("watch_paused(w1:watch_paused:%d)", t0.UnixNano()),
			check: func(t *testing.T, st State) {
				if !st.Paused || !strings.Contains(st.Reason, "max_wakes_per_hour") {
					t.Errorf("state %+v", st)
				}
			}},
		{name: "wakes older than an hour do not count", spec: stepSpec(func(sp *Spec) { sp.MaxWakesPerHour = 1 }),
			st:  baselined("one", func(st *State) { st.FireTimes = []time.Time{t0.Add(-2 * time.Hour)} }),
			obs: &Observation{Text: "two"}, events: "watch_fired(w1:fire:1)"},
		{name: "the last fire of the budget fires, then pauses", spec: stepSpec(func(sp *Spec) { sp.MaxFires = 2 }),
			st: baselined("one", func(st *State) { st.FiresUsed = 1 }), obs: &Observation{Text: "two"}, stop: true,
			events: fmt.Sprintf("watch_fired(w1:fire:2) watch_paused(w1:watch_paused:%d)", t0.UnixNano())},
		{name: "an unreachable source is a skipped check", spec: stepSpec(nil), st: baselined("one", nil),
			err: fmt.Errorf("timeout: %w", ErrUnreachable), check: func(t *testing.T, st State) {
				if st.Skipped != 1 || st.Unreachable != 1 || st.Paused {
					t.Errorf("state %+v", st)
				}
			}},
		{name: "unreachable grace checks in a row pause, telling once", spec: stepSpec(nil),
			st:  baselined("one", func(st *State) { st.Unreachable = 1 }),
			err: fmt.Errorf("503: %w", ErrUnreachable), stop: true, events: fmt.Sprintf("watch_paused(w1:watch_paused:%d)", t0.UnixNano())},
		{name: "errors in a row pause, the error redacted", spec: stepSpec(nil),
			st:  baselined("one", func(st *State) { st.Errors = 2 }),
			err: errors.New("open: token=sk-abcdefghijklmnopqrstuvwxyz0123 not found"), stop: true,
			events: fmt.Sprintf("watch_paused(w1:watch_paused:%d)", t0.UnixNano()), check: func(t *testing.T, st State) {
				if strings.Contains(st.LastError, "sk-abcdefghijklmnopqrstuvwxyz0123") || !strings.Contains(st.Reason, "3 failed checks") {
					t.Errorf("state %+v", st)
				}
			}},
		{name: "an edge-triggered check that already held fires nothing", spec: stepSpec(func(sp *Spec) { sp.Check, sp.Value = CheckContains, "done" }),
			st: baselined("done 1", func(st *State) { st.Holds = true }), obs: &Observation{Text: "done 2"}},
		{name: "an edge-triggered check that starts to hold fires", spec: stepSpec(func(sp *Spec) { sp.Check, sp.Value = CheckContains, "done" }),
			st: baselined("building", nil), obs: &Observation{Text: "done"}, events: "watch_fired(w1:fire:1)"},
		{name: "with a condition a match waits for the model", spec: stepSpec(func(sp *Spec) { sp.Condition = "it passed" }),
			st: baselined("one", nil), obs: &Observation{Text: "two"}, check: func(t *testing.T, st State) {
				if st.Judging == nil || st.Judging.Check != 2 || !st.Judging.Since.Equal(t0) || st.FiresUsed != 0 {
					t.Errorf("state %+v judging %+v", st, st.Judging)
				}
			}},
		{name: "a command's terminal outcome fires and pauses", spec: stepSpec(func(sp *Spec) { sp.Kind = KindCommand }),
			st: baselined("idle", nil), obs: &Observation{Fire: true, Terminal: true, Payload: "finished"}, stop: true,
			events: fmt.Sprintf("watch_fired(w1:fire:1) watch_paused(w1:watch_paused:%d)", t0.UnixNano())},
		{name: "an approval's decision is its one event, and it ends", spec: stepSpec(func(sp *Spec) {
			sp.Kind, sp.Approval = KindApproval, &Approval{Question: "Ship?", Options: []string{"Yes", "No"}}
		}), st: State{Baselined: true}, obs: &Observation{Fire: true, Payload: `{"decision":"Yes","comment":"go"}`}, stop: true,
			events: "watch_fired(w1:decision)", check: func(t *testing.T, st State) {
				if e := st.Pending[0]; e.Decision != "Yes" || e.From != FromApprovalLink || !strings.Contains(e.Comment, "untrusted") {
					t.Errorf("event %+v", e)
				}
				if !st.Paused || !strings.HasPrefix(st.Reason, "decided: Yes") {
					t.Errorf("state %+v", st)
				}
			}},
		{name: "a decision already fired before a restart only ends", spec: stepSpec(func(sp *Spec) { sp.Kind = KindApproval }),
			st: State{Baselined: true, FiresUsed: 1}, obs: &Observation{Fire: true, Payload: `{"decision":"Yes"}`}, stop: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			next, out := Step(c.spec, c.st, c.obs, c.err, t0)
			if out.Stop != c.stop {
				t.Errorf("stop = %v, want %v (log %q)", out.Stop, c.stop, out.Log)
			}
			if got := kinds(out.Events); got != c.events {
				t.Errorf("events %q, want %q (log %q)", got, c.events, out.Log)
			}
			if got := kinds(next.Pending); got != c.events {
				t.Errorf("the state's outbox holds %q, want %q", got, c.events)
			}
			if c.check != nil {
				c.check(t, next)
			}
		})
	}
}

// A step changes a copy: the caller's state, slices included, is as it was.
func TestStepLeavesTheCallersStateAlone(t *testing.T) {
	sp := stepSpec(func(sp *Spec) { sp.Check = CheckNew })
	st := State{Baselined: true, Keys: make([]string, 1, 10), FireTimes: make([]time.Time, 0, 10)}
	st.Keys[0] = "a"
	next, _ := Step(sp, st, &Observation{Text: "a b", Items: []Item{{Key: "a"}, {Key: "b"}}}, nil, t0)
	if len(next.Keys) != 2 || next.FiresUsed != 1 {
		t.Fatalf("next %+v", next)
	}
	if st.Checks != 0 || st.FiresUsed != 0 || len(st.Pending) != 0 || st.Keys[:2][1] != "" {
		t.Errorf("the caller's state changed: %+v (keys' array %q)", st, st.Keys[:2])
	}
}

func TestStepLimits(t *testing.T) {
	past := t0.Add(-time.Minute)
	cases := []struct {
		name    string
		spec    *Spec
		st      State
		waiting bool
		stop    bool
		events  string
	}{
		{name: "within its limits nothing happens", spec: stepSpec(nil), st: baselined("x", nil)},
		{name: "expired: paused, told once", spec: stepSpec(func(sp *Spec) { sp.ExpiresAt = &past }), st: baselined("x", nil),
			stop: true, events: fmt.Sprintf("watch_expired(w1:watch_expired:%d)", t0.UnixNano())},
		{name: "expired with a match waiting for the model: the match goes out unjudged first",
			spec: stepSpec(func(sp *Spec) { sp.ExpiresAt, sp.Condition = &past, "c" }),
			st:   baselined("x", func(st *State) { st.Judging = &Judging{Summary: "changed", Check: 1, Since: past} }),
			stop: true, events: fmt.Sprintf("watch_fired(w1:fire:1) watch_expired(w1:watch_expired:%d)", t0.UnixNano())},
		{name: "an approval's decision waiting outlives its expiry", spec: stepSpec(func(sp *Spec) { sp.ExpiresAt = &past }),
			st: baselined("x", nil), waiting: true},
		{name: "a spent budget pauses", spec: stepSpec(func(sp *Spec) { sp.MaxFires = 1 }), st: baselined("x", func(st *State) { st.FiresUsed = 1 }),
			stop: true, events: fmt.Sprintf("watch_paused(w1:watch_paused:%d)", t0.UnixNano())},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			next, out := StepLimits(c.spec, c.st, t0, c.waiting)
			if out.Stop != c.stop || kinds(out.Events) != c.events {
				t.Errorf("stop %v events %q, want %v %q (log %q)", out.Stop, kinds(out.Events), c.stop, c.events, out.Log)
			}
			if c.stop != next.Paused {
				t.Errorf("paused = %v", next.Paused)
			}
		})
	}
}

func TestStepVerdict(t *testing.T) {
	j := Judging{Summary: "changed", Payload: "p", Text: "t", Check: 4, Since: t0.Add(-time.Minute)}
	judging := func(mod func(*State)) State {
		return baselined("x", func(st *State) {
			jj := j
			st.Judging = &jj
			if mod != nil {
				mod(st)
			}
		})
	}
	sp := stepSpec(func(sp *Spec) { sp.Condition = "the build passed"; sp.JudgeFailures = 3 })
	cases := []struct {
		name             string
		st               State
		v                Judgment
		err              error
		settled, stop    bool
		events, inReason string
		failures         int
	}{
		{name: "holds: it fires", st: judging(nil), v: Judgment{Holds: true, Why: "green"}, settled: true,
			events: "watch_fired(w1:fire:1)", inReason: "condition holds"},
		{name: "does not hold: the match is consumed", st: judging(nil), v: Judgment{Why: "red"}, settled: true},
		{name: "no model: it fires marked not checked", st: judging(nil), err: fmt.Errorf("%w: no model", ErrNotJudged), settled: true,
			events: "watch_fired(w1:fire:1)", inReason: "condition not checked"},
		{name: "a failure under the limit: the match waits", st: judging(nil), err: errors.New("503"), failures: 1},
		{name: "the last failure allowed: it fires unchecked", st: judging(func(st *State) { st.Judging.Failures = 2 }), err: errors.New("503"),
			settled: true, events: "watch_fired(w1:fire:1)", inReason: "failed 3 times"},
		{name: "settled by someone else meanwhile", st: baselined("x", nil), v: Judgment{Holds: true}, settled: true},
		{name: "paused while asked: it waits for a resume", st: judging(func(st *State) { st.Paused = true }), v: Judgment{Holds: true}, stop: true},
		{name: "a terminal command's match pauses once settled", st: judging(func(st *State) { st.Judging.Terminal = true }), v: Judgment{Holds: true},
			settled: true, stop: true, events: fmt.Sprintf("watch_fired(w1:fire:1) watch_paused(w1:watch_paused:%d)", t0.UnixNano())},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			asked := j // what the runner read before it asked: the state's match
			if c.st.Judging != nil {
				asked.Terminal = c.st.Judging.Terminal
			}
			next, out, settled := StepVerdict(sp, c.st, asked, c.v, c.err, time.Second, t0)
			if settled != c.settled || out.Stop != c.stop || kinds(out.Events) != c.events {
				t.Errorf("settled %v stop %v events %q, want %v %v %q (log %q)", settled, out.Stop, kinds(out.Events), c.settled, c.stop, c.events, out.Log)
			}
			if c.inReason != "" && !strings.Contains(out.Events[0].Reason, c.inReason) {
				t.Errorf("reason %q, want it to say %q", out.Events[0].Reason, c.inReason)
			}
			switch {
			case c.failures > 0 && (next.Judging == nil || next.Judging.Failures != c.failures):
				t.Errorf("judging %+v, want %d failures", next.Judging, c.failures)
			case c.settled && next.Judging != nil:
				t.Errorf("settled, but the match still waits: %+v", next.Judging)
			}
		})
	}
}

func TestStepDeliveries(t *testing.T) {
	sp := stepSpec(func(sp *Spec) {
		sp.Kind, sp.Check, sp.Path, sp.Value = KindWebhook, CheckStatus, "status", "failure"
		sp.Link = &LinkSpec{MaxHits: 3, RatePerMin: 60}
	})
	d := func(seq int, body string) inboxDelivery {
		return inboxDelivery{Key: fmt.Sprintf("%010d-k%d", seq, seq), Item: inboxItem{Seq: seq, Body: []byte(body)}}
	}
	cases := []struct {
		name   string
		st     State
		ds     []inboxDelivery
		hits   int
		stop   bool
		events string
		keys   int
	}{
		{name: "a delivery that fits fires with its own key", st: State{Baselined: true}, ds: []inboxDelivery{d(1, `{"status":"failure"}`)}, hits: 1,
			events: "watch_fired(w1:hook:0000000001-k1)", keys: 1},
		{name: "one that does not fit is only recorded", st: State{Baselined: true}, ds: []inboxDelivery{d(1, `{"status":"success"}`)}, hits: 1, keys: 1},
		{name: "a delivery handled before a restart is not handled again", st: State{Baselined: true, Keys: []string{"0000000001-k1"}},
			ds: []inboxDelivery{d(1, `{"status":"failure"}`)}, hits: 1, keys: 1},
		{name: "a misfit is told once", st: State{Baselined: true}, ds: []inboxDelivery{d(1, `{}`), d(2, `{}`)}, hits: 2,
			events: "watch_fired(w1:hook:0000000001-k1)", keys: 2},
		{name: "the last delivery closes the link", st: State{Baselined: true}, ds: []inboxDelivery{d(3, `{"status":"failure"}`)}, hits: 3, stop: true,
			events: fmt.Sprintf("watch_fired(w1:hook:0000000003-k3) watch_paused(w1:watch_paused:%d)", t0.UnixNano()), keys: 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			next, out := stepDeliveries(sp, c.st, c.ds, nil, c.hits, t0)
			if out.Stop != c.stop || kinds(out.Events) != c.events || len(next.Keys) != c.keys {
				t.Errorf("stop %v events %q keys %q, want %v %q %d keys (log %q)", out.Stop, kinds(out.Events), next.Keys, c.stop, c.events, c.keys, out.Log)
			}
		})
	}
}

// The outbox: what is in the log already is not sent again; a fire whose
// append failed is returned to the budget and its delivery handled again.
func TestDeliveryDedupeAndFailure(t *testing.T) {
	sp := stepSpec(nil)
	pending := []bgtasks.Event{{Kind: bgtasks.EventWatchFired, DedupeKey: "w1:fire:1"}, {Kind: bgtasks.EventWatchFired, DedupeKey: "w1:hook:0000000002-k2"}}
	send, already := ToDeliver(pending, map[string]bool{"w1:fire:1": true})
	if len(send) != 1 || send[0].DedupeKey != "w1:hook:0000000002-k2" || len(already) != 1 {
		t.Fatalf("send %v already %v", send, already)
	}
	if send, _ := ToDeliver(pending, nil); len(send) != 2 {
		t.Fatalf("without a look at the log, everything goes: %v", send)
	}
	st := State{FiresUsed: 2, Keys: []string{"0000000002-k2"}, Pending: pending}
	next, out := StepDelivered(sp, st, map[string]error{"w1:hook:0000000002-k2": errors.New("disk full")})
	if next.FiresUsed != 1 || len(next.Keys) != 0 || next.Pending != nil || !strings.Contains(next.LastError, "disk full") || len(out.Log) != 1 {
		t.Fatalf("after a failed append: %+v (log %q)", next, out.Log)
	}
	if next, _ := StepDelivered(sp, st, nil); next.FiresUsed != 2 || len(next.Keys) != 1 || next.Pending != nil {
		t.Fatalf("after every append went out: %+v", next)
	}
}

// A quiet check with nothing to say is counted in the state (watch show,
// watch ls), not logged: a line per check woke the runner's supervisor
// about 30 times a line and grew the runner's log by a line per check.
// What a source says of a quiet check (a command's reason) and any change
// are still logged.
func TestQuietChecksAreCountedNotLogged(t *testing.T) {
	cases := []struct {
		name string
		obs  *Observation
		log  string // "" for no line
	}{
		{"unchanged", &Observation{Text: "one"}, ""},
		{"a 304", &Observation{Quiet: true, ETag: `"e1"`}, ""},
		{"quiet with a reason", &Observation{Quiet: true, Payload: "still building"}, "check 2: quiet (still building)"},
		{"changed", &Observation{Text: "two"}, "fired"},
	}
	for _, c := range cases {
		next, out := Step(stepSpec(nil), baselined("one", nil), c.obs, nil, t0)
		if next.Checks != 2 || (c.log != "fired" && next.QuietChecks != 1) {
			t.Errorf("%s: state %+v, want 2 checks (1 quiet unless it changed)", c.name, next)
		}
		switch {
		case c.log == "" && len(out.Log) != 0:
			t.Errorf("%s: logged %q, want nothing", c.name, out.Log)
		case c.log != "" && (len(out.Log) == 0 || !strings.Contains(strings.Join(out.Log, "\n"), c.log)):
			t.Errorf("%s: logged %q, want a line with %q", c.name, out.Log, c.log)
		}
	}
}
