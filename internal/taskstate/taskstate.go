// Package taskstate owns the words for a task's life that its records on
// disk (bgtasks) and the supervisor's wire contract (supervisor/proto) both
// speak: who waits for it (Mode) and where it is in its life (State). It is
// below both so that neither imports the other: the records and the wire
// are free to change apart, and these words stay one.
package taskstate

// Mode says who is waiting for a task.
type Mode string

const (
	// Foreground: a caller is attached and blocked until the task ends or is detached.
	Foreground Mode = "foreground"
	// Background: nobody waits; only `bg kill` or the command's own exit ends it.
	Background Mode = "background"
)

// State is where a task is in its life.
type State string

const (
	Starting State = "starting" // directory made, supervisor not yet reporting
	Running  State = "running"
	Exited   State = "exited" // the command ended by itself (exit code or signal)
	Killed   State = "killed" // hangdog ended it (bg kill, watchdog, caller gone)
	Lost     State = "lost"   // the supervisor died without writing a result; output kept
)

// Ended reports whether the state is final.
func (s State) Ended() bool { return s == Exited || s == Killed || s == Lost }
