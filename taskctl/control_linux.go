//go:build linux

package taskctl

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/internal/unixsock"
	"github.com/hangdog/hangdog/supervisor/proto"
)

// ErrNotReachable means a task's supervisor did not answer on its socket.
var ErrNotReachable = errors.New("supervisor not reachable")

// RefusedError is a supervisor's refusal of a request; Kind says which
// kind it is, when it says.
type RefusedError = proto.Refusal

// call asks t's supervisor for req and returns its typed reply.
func call[R any](ctx context.Context, t *bgtasks.Task, req proto.Request[R]) (R, error) {
	var zero R
	c, err := unixsock.Dial(ctx, t.SocketPath()) // a path of any length
	if err != nil {
		return zero, fmt.Errorf("task %s: %w (%v)", t.ID, ErrNotReachable, err)
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Now()) })
	defer stop()
	if _, err := c.Write(proto.EncodeRequest(req)); err != nil {
		return zero, fmt.Errorf("task %s: send %s: %w", t.ID, req.Op(), err)
	}
	line, err := bufio.NewReader(c).ReadBytes('\n')
	if err != nil {
		if ctx.Err() != nil {
			return zero, ctx.Err()
		}
		return zero, fmt.Errorf("task %s: no answer to %s: %w", t.ID, req.Op(), err)
	}
	rep, err := proto.DecodeReply(req, line)
	if _, refused := errors.AsType[*RefusedError](err); refused {
		return zero, err // unwrapped: the supervisor's words are what front ends show
	}
	if err != nil {
		return zero, fmt.Errorf("task %s: %w", t.ID, err)
	}
	return rep, nil
}

// DetachTask moves a running foreground task to the background.
func DetachTask(ctx context.Context, t *bgtasks.Task, reason string) (Detach, error) {
	return call(ctx, t, proto.DetachRequest{Reason: reason})
}

// KillTask stops the task's whole tree (sig, then SIGKILL after grace) and
// returns its result once nothing of it is left.
func KillTask(ctx context.Context, t *bgtasks.Task, sig syscall.Signal, grace time.Duration, reason string) (bgtasks.Result, error) {
	res, err := call(ctx, t, proto.KillRequest{Signal: int(sig), GraceMS: grace.Milliseconds(), Reason: reason})
	if err != nil {
		return bgtasks.Result{}, err
	}
	return resultRecord(res), nil
}

// SendInput writes bytes to the task's terminal.
func SendInput(ctx context.Context, t *bgtasks.Task, data []byte) error {
	_, err := call(ctx, t, proto.SendRequest{Data: data})
	return err
}

// ResizeTask sets the task's terminal size.
func ResizeTask(ctx context.Context, t *bgtasks.Task, rows, cols uint16) error {
	_, err := call(ctx, t, proto.ResizeRequest{Rows: rows, Cols: cols})
	return err
}

// TaskStatus asks a running task's supervisor for its live state.
func TaskStatus(ctx context.Context, t *bgtasks.Task) (Status, error) {
	return call(ctx, t, proto.StatusRequest{})
}
