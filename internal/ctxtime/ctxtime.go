// Package ctxtime owns waiting that a context can cut short: the one
// Sleep of the loops that retry or poll until they are stopped (the fleet's
// forwarder, its link consumer, the wake worker).
package ctxtime

import (
	"context"
	"time"
)

// Sleep waits d or until ctx ends; it reports false if ctx ended first.
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
