package bgtasks

import (
	"errors"
	"fmt"
)

var (
	// ErrNotFound: no task (or no foreground task) matches.
	ErrNotFound = errors.New("task not found")
	// ErrAlreadyEnded: the task already has a result; the first one is kept.
	ErrAlreadyEnded = errors.New("task already ended")
	// ErrRunning: the operation needs an ended task.
	ErrRunning = errors.New("task is still running")
)

// kindError carries a user-facing message while still matching a sentinel
// with errors.Is, so the CLI can print the message as it is.
type kindError struct {
	msg  string
	kind error
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() error { return e.kind }

func errorOf(kind error, format string, args ...any) error {
	return &kindError{msg: fmt.Sprintf(format, args...), kind: kind}
}

func notFound(id string) error {
	return errorOf(ErrNotFound, "no task %s; `hangdog bg ls` lists tasks", id)
}
