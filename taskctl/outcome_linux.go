//go:build linux

package taskctl

import (
	"errors"
	"fmt"

	"github.com/hangdog/hangdog/bgtasks"
)

// OutcomeKind says how a followed run left its caller.
type OutcomeKind int

const (
	// Ended: the command ended; Outcome.Result says how.
	Ended OutcomeKind = iota + 1
	// Detached: the run moved to the background; Outcome.Detach says why.
	// The command runs on.
	Detached
	// Failed: the command could not be started; Outcome.Message says why.
	Failed
	// Lost: the supervisor vanished without recording an end; Outcome.Err
	// says how the link broke. The output is kept.
	Lost
)

// Outcome is how a run came back to its caller: the one thing each front
// end renders when a run it follows is over.
type Outcome struct {
	Kind    OutcomeKind
	TaskID  string
	Result  *bgtasks.Result
	Detach  *Detach
	Message string
	Err     error
	// FromRecord says the end was read from the task's record after the
	// link broke: the supervisor recorded it, then went before saying so.
	FromRecord bool
	// Task is the record read then (FromRecord or Lost), when it could be.
	Task *bgtasks.Task
}

// Follow reads the link until the run is over and returns how. Every other
// event (started, output, warnings, verdicts) goes to on, in order, first;
// an error from on ends Follow with that error, as does ErrOutputClosed
// (the file given to CopyOutputTo stopped taking output). A link that
// breaks without an end is resolved from the task's record: an end the
// supervisor recorded is Ended, anything else is Lost.
func (l *Link) Follow(on func(Event) error) (Outcome, error) {
	for {
		ev, err := l.Next()
		if errors.Is(err, ErrOutputClosed) {
			return Outcome{TaskID: l.TaskID}, err
		}
		if err != nil {
			return l.lost(err), nil
		}
		switch ev.Kind {
		case EventEnded:
			return Outcome{Kind: Ended, TaskID: l.TaskID, Result: ev.Result}, nil
		case EventDetached:
			return Outcome{Kind: Detached, TaskID: l.TaskID, Detach: ev.Detach}, nil
		case EventFailed:
			return Outcome{Kind: Failed, TaskID: l.TaskID, Message: ev.Message}, nil
		}
		if on != nil {
			if err := on(ev); err != nil {
				return Outcome{TaskID: l.TaskID}, err
			}
		}
	}
}

// lost resolves a broken link from the record on disk.
func (l *Link) lost(cause error) Outcome {
	o := Outcome{Kind: Lost, TaskID: l.TaskID, Err: cause}
	t, err := l.reg.Get(l.TaskID)
	if err != nil {
		o.Err = fmt.Errorf("%w (and its record: %v)", cause, err)
		return o
	}
	o.Task = t
	if t.Result != nil && t.Result.State != bgtasks.Lost {
		o.Kind, o.Result, o.FromRecord = Ended, t.Result, true
	}
	return o
}

// Presenter shows how a run came back, in one front end's words and in its
// own terms: the CLI returns its exit status, the MCP server a tool result,
// the shell a message for its model. Present picks which of its methods
// applies; each front end only says it.
type Presenter[T any] interface {
	Ended(o Outcome) T    // o.Result; o.FromRecord when read from the record
	Detached(o Outcome) T // o.Detach
	Failed(o Outcome) T   // o.Message
	Lost(o Outcome) T     // o.Err; o.Task when the record could be read
}

// Present shows o through p.
func Present[T any](o Outcome, p Presenter[T]) T {
	switch o.Kind {
	case Ended:
		return p.Ended(o)
	case Detached:
		return p.Detached(o)
	case Failed:
		return p.Failed(o)
	}
	return p.Lost(o)
}
