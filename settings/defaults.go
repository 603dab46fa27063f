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

// DefaultText is a key's built-in default as a user would write it ("20",
// "127.0.0.1:17465"), for help texts, tool descriptions and the generated
// reference: they name the key and read its default from the one table
// here, so no text repeats a number the table holds. It panics on a key
// that is not in the table: every caller names a key at build time, and a
// test that renders the text finds a misspelling at once.
func DefaultText(key string) string {
	spec, ok := lookupKey(key)
	if !ok || spec.Key != key {
		panic(fmt.Sprintf("settings.DefaultText: no key %q", key))
	}
	return formatValue(spec.Default)
}

// DefaultHelp names a key with its built-in default, the way help texts
// cite one: "the watchers.maxFires setting, 20 unless set". It stays true
// when the user sets the key, which a bare number would not.
func DefaultHelp(key string) string {
	return fmt.Sprintf("the %s setting, %s unless set", key, DefaultText(key))
}

// EnvVar is the environment variable that sets the key, e.g.
// HANGDOG_WATCHERS_MAXFIRES for watchers.maxFires.
func (s KeySpec) EnvVar() string { return envName(s.Key) }
