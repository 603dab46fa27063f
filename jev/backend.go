package jev

import "context"

// Backend answers questions about a State.
//
// Ask returns exactly one Answer per Question, in order, even when it also
// returns an error: a question it could not answer gets an Abstain answer,
// and the error says why, for the log.
type Backend interface {
	Name() string
	Ask(ctx context.Context, st State, qs []Question) ([]Answer, error)
}
