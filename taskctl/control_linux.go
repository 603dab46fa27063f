//go:build linux

package taskctl

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"syscall"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/supervisor/proto"
)

// ErrNotReachable means a task's supervisor did not answer on its socket.
var ErrNotReachable = errors.New("supervisor not reachable")

// RefusedError is a supervisor's refusal of a request; Kind says which
// kind it is, when it says.
type RefusedError struct {
	Kind proto.ErrorKind
	Msg  string
}

func (e *RefusedError) Error() string { return e.Msg }

func call(ctx context.Context, t *bgtasks.Task, req proto.Request) (proto.Reply, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", t.SocketPath())
	if err != nil {
		return proto.Reply{}, fmt.Errorf("task %s: %w (%v)", t.ID, ErrNotReachable, err)
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Now()) })
	defer stop()
	b, _ := json.Marshal(req)
	if _, err := c.Write(append(b, '\n')); err != nil {
		return proto.Reply{}, fmt.Errorf("task %s: send %s: %w", t.ID, req.Op, err)
	}
	line, err := bufio.NewReader(c).ReadBytes('\n')
	if err != nil {
		if ctx.Err() != nil {
			return proto.Reply{}, ctx.Err()
		}
		return proto.Reply{}, fmt.Errorf("task %s: no answer to %s: %w", t.ID, req.Op, err)
	}
	var rep proto.Reply
	if err := json.Unmarshal(line, &rep); err != nil {
		return proto.Reply{}, fmt.Errorf("task %s: malformed answer: %w", t.ID, err)
	}
	if !rep.OK {
		return rep, &RefusedError{Kind: rep.ErrorKind, Msg: rep.Error}
	}
	return rep, nil
}

// DetachTask moves a running foreground task to the background.
func DetachTask(ctx context.Context, t *bgtasks.Task, reason string) (Detach, error) {
	rep, err := call(ctx, t, proto.Request{Op: proto.OpDetach, Reason: reason})
	if err != nil {
		return Detach{}, err
	}
	return *rep.Detach, nil
}

// KillTask stops the task's whole tree (sig, then SIGKILL after grace) and
// returns its result once nothing of it is left.
func KillTask(ctx context.Context, t *bgtasks.Task, sig syscall.Signal, grace time.Duration, reason string) (bgtasks.Result, error) {
	rep, err := call(ctx, t, proto.Request{Op: proto.OpKill, Signal: int(sig), GraceMS: grace.Milliseconds(), Reason: reason})
	if err != nil {
		return bgtasks.Result{}, err
	}
	return *rep.Result, nil
}

// SendInput writes bytes to the task's terminal.
func SendInput(ctx context.Context, t *bgtasks.Task, data []byte) error {
	_, err := call(ctx, t, proto.Request{Op: proto.OpSend, Data: data})
	return err
}

// ResizeTask sets the task's terminal size.
func ResizeTask(ctx context.Context, t *bgtasks.Task, rows, cols uint16) error {
	_, err := call(ctx, t, proto.Request{Op: proto.OpResize, Rows: rows, Cols: cols})
	return err
}

// TaskStatus asks a running task's supervisor for its live state.
func TaskStatus(ctx context.Context, t *bgtasks.Task) (Status, error) {
	rep, err := call(ctx, t, proto.Request{Op: proto.OpStatus})
	if err != nil {
		return Status{}, err
	}
	return *rep.Status, nil
}
