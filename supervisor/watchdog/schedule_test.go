package watchdog

import (
	"testing"
	"time"

	"github.com/hangdog/hangdog/settings/watchdogconf"
)

func TestNextDue(t *testing.T) {
	const sec = time.Second
	tests := []struct {
		name            string
		first, interval float64 // minutes
		dueAt           []time.Duration
		want            []time.Duration // before any due check, then after each
	}{
		{"defaults", 2, 3, []time.Duration{2 * time.Minute, 5 * time.Minute}, []time.Duration{2 * time.Minute, 5 * time.Minute, 8 * time.Minute}},
		{"fractional minutes", 0.5, 1.5, []time.Duration{30 * sec, 120 * sec}, []time.Duration{30 * sec, 120 * sec, 210 * sec}},
		{"a late check keeps the schedule", 0.5, 1.5, []time.Duration{30 * sec, 130 * sec}, []time.Duration{30 * sec, 120 * sec, 210 * sec}},
		{"ticks one second late do not drift", 0.05, 0.05, []time.Duration{3 * sec, 7 * sec, 10 * sec, 13*sec + 900*time.Millisecond}, []time.Duration{3 * sec, 6 * sec, 9 * sec, 12 * sec, 15 * sec}},
		{"a check that missed slots skips them", 0.5, 0.5, []time.Duration{30 * sec, 100 * sec}, []time.Duration{30 * sec, 60 * sec, 120 * sec}},
		{"first check at once", 0, 0.05, []time.Duration{0, 3 * sec}, []time.Duration{0, 3 * sec, 6 * sec}},
		{"an interval of zero cannot spin", 1, 0, []time.Duration{time.Minute}, []time.Duration{time.Minute, time.Minute + sec}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := config(func(c *watchdogconf.Watchdog) { c.FirstCheckMin, c.IntervalMin = tt.first, tt.interval })
			w := New(cfg, "make", t0)
			if got := w.NextDue(); !got.Equal(t0.Add(tt.want[0])) {
				t.Errorf("before any check: NextDue = +%v, want +%v", got.Sub(t0), tt.want[0])
			}
			for i, at := range tt.dueAt {
				w.Due(Observation{Now: t0.Add(at), Started: t0, Command: "make"})
				if got := w.NextDue(); !got.Equal(t0.Add(tt.want[i+1])) {
					t.Errorf("after the check at +%v: NextDue = +%v, want +%v", at, got.Sub(t0), tt.want[i+1])
				}
			}
		})
	}
}

func TestFastChecksDoNotMoveTheSchedule(t *testing.T) {
	w := New(config(), "make", t0)
	w.Fast(Observation{Now: t0.Add(time.Minute), Started: t0, Command: "make"})
	if got := w.NextDue(); !got.Equal(t0.Add(2 * time.Minute)) {
		t.Errorf("NextDue after a fast check = +%v, want +2m", got.Sub(t0))
	}
	d := w.Due(Observation{Now: t0.Add(2 * time.Minute), Started: t0, Command: "make"})
	if d.Check != 2 || !d.Due {
		t.Errorf("due check = #%d due=%v, want #2 due=true", d.Check, d.Due)
	}
}
