//go:build linux

package taskctl

import (
	"context"
	"errors"
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
		k, err := killStarting(ctx, reg, t.ID, KillOptions{Signal: syscall.SIGTERM, Grace: grace, Reason: "its session " + session + " ended (tasks.onSessionEnd: kill)"})
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

// startingPatience is how long EndSession keeps trying a task whose
// supervisor is not answering yet: a session that ends right after
// starting a task (a client that starts a server and quits) catches it
// while its supervisor is still opening its socket.
const startingPatience = 5 * time.Second

// killStarting is Kill, tried again while the task's supervisor cannot be
// reached yet and the task has not ended.
func killStarting(ctx context.Context, reg *bgtasks.Registry, id string, opts KillOptions) (Killed, error) {
	deadline := time.Now().Add(startingPatience)
	for {
		k, err := Kill(ctx, reg, id, opts)
		if !errors.Is(err, ErrNotReachable) || time.Now().After(deadline) {
			return k, err
		}
		if t, gerr := reg.Get(id); gerr == nil && t.State().Ended() {
			return k, err
		}
		select {
		case <-ctx.Done():
			return k, err
		case <-time.After(100 * time.Millisecond):
		}
	}
}
