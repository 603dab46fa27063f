// Package watchdogconf holds the effective watchdog configuration of one run:
// its fields, defaults and durations. It imports nothing heavy, so the
// supervisor process can use it without loading the settings layers (viper).
package watchdogconf

import "time"

// Watchdog is the effective watchdog configuration of one run. The caller
// resolves it and hands it to the task's supervisor in the hand-over on the
// caller link (supervisor/proto, encoded field by field), never in a file.
// Its JSON names are the config files' keys.
type Watchdog struct {
	Enabled       bool          `json:"enabled" mapstructure:"enabled"`
	IntervalMin   float64       `json:"intervalMin" mapstructure:"intervalMin"`
	FirstCheckMin float64       `json:"firstCheckMin" mapstructure:"firstCheckMin"`
	Confidence    float64       `json:"confidence" mapstructure:"confidence"`
	AgreeChecks   int           `json:"agreeChecks" mapstructure:"agreeChecks"`
	Action        string        `json:"action" mapstructure:"action"`
	WatchBash     bool          `json:"watchBash" mapstructure:"watchBash"`
	WatchBgTasks  bool          `json:"watchBgTasks" mapstructure:"watchBgTasks"`
	OtherTools    string        `json:"otherTools" mapstructure:"otherTools"`
	InputWaitSec  float64       `json:"inputWaitSec" mapstructure:"inputWaitSec"`
	Debug         bool          `json:"debug" mapstructure:"debug"`
	DecisionModel DecisionModel `json:"decisionModel" mapstructure:"decisionModel"`
}

// DecisionModel says which decision model answers the watchdog's questions.
type DecisionModel struct {
	Source     string  `json:"source" mapstructure:"source"`
	Backend    string  `json:"backend" mapstructure:"backend"`
	URL        string  `json:"url" mapstructure:"url"`
	Model      string  `json:"model" mapstructure:"model"`
	APIKeyEnv  string  `json:"apiKeyEnv" mapstructure:"apiKeyEnv"`
	TimeoutSec float64 `json:"timeoutSec" mapstructure:"timeoutSec"`
}

// Default is the built-in configuration, used when nothing overrides it.
func Default() Watchdog {
	return Watchdog{
		Enabled:       true,
		IntervalMin:   3,
		FirstCheckMin: 2,
		Confidence:    0.5,
		AgreeChecks:   2,
		Action:        "background",
		WatchBash:     true,
		WatchBgTasks:  false,
		OtherTools:    OtherToolsOff,
		InputWaitSec:  3,
		Debug:         false,
		DecisionModel: DecisionModel{Source: "inherit", Backend: "local", TimeoutSec: 20},
	}
}

// Interval is the time between checks after the first one.
func (w Watchdog) Interval() time.Duration { return minutes(w.IntervalMin) }

// FirstCheck is how long a command runs before its first check.
func (w Watchdog) FirstCheck() time.Duration { return minutes(w.FirstCheckMin) }

// InputWait is how long a call blocked reading an unattended terminal waits
// before it is acted on.
func (w Watchdog) InputWait() time.Duration { return seconds(w.InputWaitSec) }

// Timeout is how long to wait for a remote decision model's answer.
func (m DecisionModel) Timeout() time.Duration { return seconds(m.TimeoutSec) }

func minutes(m float64) time.Duration { return time.Duration(m * float64(time.Minute)) }
func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// What watchdog.otherTools allows: what a call of an agent's other tools
// (an MCP server's, through `hangdog mcp-proxy`) judged stuck gets.
const (
	OtherToolsOff   = "off"        // relayed untouched, nothing sampled
	OtherToolsWarn  = "warn"       // the client is told, the result carries the warning
	OtherToolsAbort = "abort-turn" // cancelled downstream, answered at once with an error result
)

// ForceActEnv, set to 1, makes every due check act (for testing the action
// paths). It is not a setting: nothing persists it, and it shares the
// watchdog's variable prefix only so people find it next to the others.
const ForceActEnv = "HANGDOG_WATCHDOG_FORCE_ACT"
