package watch

import (
	"strings"
	"testing"
	"time"

	"github.com/hangdog/hangdog/settings"
)

// The watchers.* settings reach a watcher's spec, which is what its runner
// applies (graceChecks, maxErrors, judgeFailures, the default budgets), and the network
// floor they set is the one a create is held to.
func TestLimitsFromSettingsReachTheSpec(t *testing.T) {
	lim := LimitsFrom(settings.Watchers{MaxActivePerOwner: 2, MaxFires: 4, MaxWakesPerHour: 30, GraceChecks: 2, MaxErrors: 7, JudgeFailures: 5, NetworkIntervalFloorSec: 5})
	q := &Request{Kind: KindHTTP, Target: "http://127.0.0.1:1/x", IntervalSeconds: 5, Condition: "the price is a real sale"}
	sp, err := q.ValidateWith(lim, "s1", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if sp.MaxFires != 4 || sp.MaxWakesPerHour != 30 || sp.GraceChecks != 2 || sp.MaxErrors != 7 || sp.Interval != 5*time.Second {
		t.Errorf("spec = fires %d, wakes %d, grace %d, errors %d, interval %v; want 4, 30, 2, 7, 5s", sp.MaxFires, sp.MaxWakesPerHour, sp.GraceChecks, sp.MaxErrors, sp.Interval)
	}
	if sp.JudgeFailures != 5 {
		t.Errorf("spec judge failures = %d, want 5 (watchers.judgeFailures)", sp.JudgeFailures)
	}
	if _, err := q.Validate("s1", time.Now()); err == nil || !strings.Contains(err.Error(), "watchers.networkIntervalFloorSec") {
		t.Errorf("5 s http interval under the built-in limits: %v, want it refused naming the setting", err)
	}
	if LimitsFrom(settings.Watchers{}) != DefaultLimits() {
		t.Errorf("zero settings did not fall back to the built-in limits: %+v", LimitsFrom(settings.Watchers{}))
	}
}
