package settings

import (
	"fmt"
	"sync"
)

// DefaultWatchers is the watchers.* group as the key table states it,
// before any file, variable or flag applies: the built-in limits, for
// what needs them without loading settings (a Limits built by hand, the
// help of a flag).
func DefaultWatchers() Watchers { return defaultWatchers() }

var defaultWatchers = sync.OnceValue(func() Watchers {
	return Watchers{
		MaxActivePerOwner:       int(defaultNumber("watchers.maxActivePerOwner")),
		MaxFires:                int(defaultNumber("watchers.maxFires")),
		MaxWakesPerHour:         int(defaultNumber("watchers.maxWakesPerHour")),
		GraceChecks:             int(defaultNumber("watchers.graceChecks")),
		MaxErrors:               int(defaultNumber("watchers.maxErrors")),
		JudgeFailures:           int(defaultNumber("watchers.judgeFailures")),
		NetworkIntervalFloorSec: defaultNumber("watchers.networkIntervalFloorSec"),
	}
})

// defaultNumber is a numeric key's default from the table. A key missing
// there, or not a number, is a mistake in this package: it panics at the
// first use, which a test exercises.
func defaultNumber(key string) float64 {
	spec, ok := lookupKey(key)
	if !ok {
		panic("settings: no key " + key)
	}
	switch v := spec.Default.(type) {
	case int:
		return float64(v)
	case float64:
		return v
	}
	panic(fmt.Sprintf("settings: %s's default %v is not a number", key, spec.Default))
}
