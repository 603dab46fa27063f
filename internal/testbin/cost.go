package testbin

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Interleaved runs each mode once a round, rounds times, a different mode
// first each round, so a busy machine weighs on all modes alike. run makes
// one session of mode and returns its per-call times. It returns every
// mode's times and, per mode, each round's median in milliseconds.
func Interleaved(rounds int, modes []string, run func(mode string, round int) []time.Duration) (times map[string][]time.Duration, perRound map[string][]string) {
	times, perRound = map[string][]time.Duration{}, map[string][]string{}
	for round := range rounds {
		for i := range modes {
			mode := modes[(i+round)%len(modes)]
			ts := run(mode, round)
			times[mode] = append(times[mode], ts...)
			perRound[mode] = append(perRound[mode], fmt.Sprintf("%.1f", Millis(Median(ts))))
		}
	}
	return times, perRound
}

// Median is the middle of ds (the upper one of an even count); 0 for none.
func Median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// Millis is d in milliseconds.
func Millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// CostRun is what a cost test was asked for in the environment:
// HANGDOG_E2E_COST rounds (none: the test is skipped, named by script),
// HANGDOG_E2E_COST_CALLS calls a session (default 20; the first is the
// warm-up, so at least 2) and HANGDOG_E2E_COST_MODES (default modes).
func CostRun(t *testing.T, script string, modes ...string) (rounds, calls int, picked []string) {
	t.Helper()
	rounds, _ = strconv.Atoi(os.Getenv("HANGDOG_E2E_COST"))
	if rounds <= 0 {
		t.Skip("set HANGDOG_E2E_COST=ROUNDS to measure (" + script + ")")
	}
	calls = 20
	if n, err := strconv.Atoi(os.Getenv("HANGDOG_E2E_COST_CALLS")); err == nil && n > 1 {
		calls = n
	}
	picked = modes
	if m := os.Getenv("HANGDOG_E2E_COST_MODES"); m != "" {
		picked = strings.Fields(m)
	}
	return rounds, calls, picked
}
