package watchdog

import (
	"time"

	"github.com/hangdog/hangdog/jev"
	"github.com/hangdog/hangdog/supervisor/activity"
	"github.com/hangdog/hangdog/supervisor/sampler"
)

// Observation is what the supervisor saw at one check.
type Observation struct {
	Now     time.Time
	Started time.Time
	Command string

	// Interactive: a person is at the terminal. A process blocked reading it
	// is then waiting for that person, never acted on.
	Interactive bool

	Tree sampler.Tree
	// TreeOK is false when the sample failed; a missing sample never counts
	// as idle.
	TreeOK bool

	Output activity.Stats

	// Verdict is the judge's answer at a due check; nil at a fast check.
	Verdict *jev.Verdict
}

// Decision is the outcome of one check.
type Decision struct {
	Time  time.Time
	Check int  // ordinal of this check among all checks of the Watch, from 1
	Due   bool // a full check with the judge's verdict, not a fast input-only one

	Status     string  // progressing | waiting | stuck | looping, or "" when unknown
	Confidence float64 // of Status
	// Streak is the number of due checks in a row behind Trigger (for
	// example the checks that agreed the model should stop waiting); with no
	// trigger, the number of due checks in a row that agreed on Status at or
	// above the configured confidence.
	Streak int

	Trigger string // "" or one of the Trigger constants
	Veto    string // "" or one of the Veto constants; a bound reads "bound (until 12:03:04 / 450s)"

	Act    bool
	Action string // background | kill | warn, when Act

	// InputKind says what a process blocked on the terminal waits for
	// (prompt, secret, pager, editor, screen, stdin), so the caller knows
	// whether typing an answer with `hangdog bg send` can help.
	InputKind string

	Reason   string   // one line for the caller
	Evidence []string // what decided it, in words
}

// Triggers: what proposes an action.
const (
	TriggerIdle    = "idle"    // no CPU, disk, output or approaching timer since the last activity, over consecutive due checks
	TriggerStop    = "stop"    // the model said stop waiting on consecutive due checks
	TriggerExpect  = "expect"  // expected to take seconds, still running at a due check
	TriggerLooping = "looping" // the model saw repetition without progress on consecutive due checks
	TriggerInput   = "input"   // blocked reading a terminal nobody is at
	TriggerService = "service" // a foreground service is up and quiet
	TriggerForced  = "forced"  // HANGDOG_WATCHDOG_FORCE_ACT, for testing action paths
)

// Vetoes: what stops a trigger from acting.
const (
	VetoProgress    = "progress"             // CPU, disk or new distinct output in the window
	VetoBound       = "bound"                // the command declared a time it may take; the full veto names its end
	VetoService     = "service-never-killed" // a service under action kill
	VetoInteractive = "interactive"          // a person is at the terminal the process reads
	VetoDisabled    = "disabled"             // watchdog.enabled is false
	VetoIncomplete  = "incomplete-sample"    // the process tree could not be read in full
)

// Actions.
const (
	ActionBackground = "background"
	ActionKill       = "kill"
	ActionWarn       = "warn"
)

// Input kinds: what a process blocked reading the terminal waits for.
const (
	InputPrompt = "prompt" // a line-mode read after a prompt; `bg send` can answer it
	InputSecret = "secret" // echo off: a password prompt
	InputPager  = "pager"  // less, more, man: `bg send q` quits it
	InputEditor = "editor" // vim, nano, emacs
	InputScreen = "screen" // another full-screen (raw mode) program
	InputStdin  = "stdin"  // a line-mode read with no prompt shown
	InputREPL   = "repl"   // an interpreter, database shell or debugger at its prompt
	InputMenu   = "menu"   // a numbered choice: select's `#? `, `Choose 1-3 [1]:`
	InputForm   = "form"   // one field of a form: `Country Name (2 letter code) [AU]:`
)
