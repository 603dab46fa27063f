package settings

import "github.com/hangdog/hangdog/settings/watchdogconf"

// The configuration types live in a leaf package so the supervisor process,
// which only reads a resolved configuration, does not link viper.
type (
	Watchdog      = watchdogconf.Watchdog
	DecisionModel = watchdogconf.DecisionModel
)

// Default is the built-in configuration, used when nothing overrides it.
func Default() Watchdog { return watchdogconf.Default() }

// ForceActEnv, set to 1, makes every due check act; see watchdogconf.
const ForceActEnv = watchdogconf.ForceActEnv
