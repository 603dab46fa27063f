//go:build linux

package taskctl

import (
	"context"
	"fmt"
	"syscall"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
)

// Session-end policies (tasks.onSessionEnd).
const (
	SessionEndKill = "kill"
	SessionEndKeep = "keep"
)

// EndSession applies policy to the running tasks session started, now that
// it has ended: with SessionEndKill each is stopped with everything it
// started (SIGTERM, then SIGKILL after grace), so nothing an agent left
// behind runs on unowned; with SessionEndKeep they run on. It returns the
// tasks it stopped. A kill that fails is reported and the rest still go.
func EndSession(ctx context.Context, reg *bgtasks.Registry, session, policy string, grace time.Duration) ([]Killed, error) {
	if session == "" || policy != SessionEndKill {
		return nil, nil
	}
	tasks, err := reg.List()
	if err != nil {
		return nil, err
	}
	var killed []Killed
	var firstErr error
	for _, t := range tasks {
		// The session's own, not what its scope also shows (records from
		// before owners were kept belong to nobody).
		if t.Owner != session || t.State().Ended() {
			continue
		}
		k, err := Kill(ctx, reg, t.ID, KillOptions{Signal: syscall.SIGTERM, Grace: grace, Reason: "its session " + session + " ended (tasks.onSessionEnd: kill)"})
		if err != nil {
			if firstErr == nil {
				firstErr = fmt.Errorf("end session %s: %w", session, err)
			}
			continue
		}
		killed = append(killed, k)
	}
	return killed, firstErr
}
