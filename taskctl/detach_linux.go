//go:build linux

package taskctl

import (
	"context"
	"errors"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
)

// DetachRun moves task id, a foreground run, to the background; its caller
// returns at once and the command runs on. A run detached the moment it
// starts may not listen on its socket yet: while its record says it is
// starting, the call is retried until ctx ends.
func DetachRun(ctx context.Context, reg *bgtasks.Registry, id, reason string) (Detach, error) {
	for {
		t, err := reg.Get(id)
		if err != nil {
			return Detach{}, err
		}
		d, err := DetachTask(ctx, t, reason)
		if err == nil || !errors.Is(err, ErrNotReachable) || t.State() != bgtasks.Starting {
			return d, err
		}
		select {
		case <-ctx.Done():
			return d, err
		case <-time.After(50 * time.Millisecond):
		}
	}
}
