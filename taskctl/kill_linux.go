//go:build linux

package taskctl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/supervisor/proto"
)

// KillOptions is how to stop a task. Reason is recorded as the task's end
// ("killed by the agent with bg_kill"): the words are the front end's.
type KillOptions struct {
	Signal syscall.Signal // 0: SIGTERM
	Grace  time.Duration  // before SIGKILL; 0: 5 s
	Reason string
}

// Killed is how a kill came out.
type Killed struct {
	// Task is the task's record as it was found, before the kill.
	Task *bgtasks.Task
	// Result is how it ended (for a lost task: its record's).
	Result bgtasks.Result
	// Lost says the task's supervisor had died; what was left of its
	// process group (PGID) and the other processes carrying its id (PIDs)
	// were killed with SIGKILL.
	Lost bool
	PGID int
	PIDs []int
}

// LostRemains says what a kill of a lost task stopped, as every front end
// says it: "process group 123", "pids 456 789", or both.
func (k Killed) LostRemains() string {
	var parts []string
	if k.PGID > 0 {
		parts = append(parts, "process group "+strconv.Itoa(k.PGID))
	}
	if len(k.PIDs) > 0 {
		pids := make([]string, len(k.PIDs))
		for i, p := range k.PIDs {
			pids[i] = strconv.Itoa(p)
		}
		word := "pid "
		if len(pids) > 1 {
			word = "pids "
		}
		parts = append(parts, word+strings.Join(pids, " "))
	}
	return strings.Join(parts, " and ")
}

// ErrAlreadyEnded means the task had ended before it could be killed (it is
// wrapped in an *EndedError that carries the task).
var ErrAlreadyEnded = errors.New("task has already ended")

// ErrLostGone means a lost task has nothing left to kill that is provably
// its own.
var ErrLostGone = errors.New("task was lost (its supervisor died) and nothing of it is left to kill")

// EndedError is a kill of a task that had already ended (on its own, or by
// another kill); Task says how.
type EndedError struct{ Task *bgtasks.Task }

func (e *EndedError) Error() string { return fmt.Sprintf("task %s has already ended", e.Task.ID) }
func (e *EndedError) Unwrap() error { return ErrAlreadyEnded }

// Kill stops task id and every process it started, and returns once nothing
// of it is left. It recovers the two ways a kill can miss its supervisor:
// a lost task (its supervisor died) has what is left of it killed (its
// process group, if its leader is provably the same process, and every
// process carrying its id; see killLost); and a
// supervisor that exits before it answers is looked up in the record, which
// says whether this kill ended the task, it ended on its own, or it was
// lost meanwhile.
func Kill(ctx context.Context, reg *bgtasks.Registry, id string, o KillOptions) (Killed, error) {
	if o.Signal == 0 {
		o.Signal = syscall.SIGTERM
	}
	if o.Grace <= 0 {
		o.Grace = 5 * time.Second
	}
	t, err := reg.Get(id)
	if err != nil {
		return Killed{}, err
	}
	switch st := t.State(); {
	case st == bgtasks.Lost:
		return killLost(reg, t)
	case st.Ended():
		return Killed{Task: t}, &EndedError{Task: t}
	}
	ctx, cancel := context.WithTimeout(ctx, o.Grace+30*time.Second)
	defer cancel()
	res, err := KillTask(ctx, t, o.Signal, o.Grace, o.Reason)
	if err == nil {
		return Killed{Task: t, Result: res}, nil
	}
	var refused *RefusedError
	if errors.As(err, &refused) && refused.Kind != proto.ErrEnded {
		return Killed{Task: t}, err
	}
	// The supervisor went before it answered, or the task ended just now:
	// the record says which, once the supervisor is gone for good (a dead
	// supervisor not yet reaped still looks alive for a moment).
	now, gerr := settledRecord(reg, id)
	switch {
	case gerr != nil:
		return Killed{Task: t}, fmt.Errorf("%w (and its record: %v)", err, gerr)
	case now.State() == bgtasks.Lost:
		k, lerr := killLost(reg, now)
		k.Task = t
		if lerr != nil {
			return k, fmt.Errorf("%w; %w", err, lerr)
		}
		return k, nil
	case !now.State().Ended():
		return Killed{Task: t}, err
	case now.Result.Reason != o.Reason || now.Result.State != bgtasks.Killed:
		return Killed{Task: t}, &EndedError{Task: now}
	}
	return Killed{Task: t, Result: *now.Result}, nil
}

// killLost kills what is left of a lost task: its process group, if its
// leader is provably the task's command (pid and start time both match),
// and every process of this user that carries the task's id and home in its
// environment (proto.TaskIDEnv, TaskHomeEnv), which finds what the command
// left running in groups of their own after bash exited (`server &`,
// setsid) and its supervisor died. All get SIGKILL: nobody is left to
// escalate.
func killLost(reg *bgtasks.Registry, t *bgtasks.Task) (Killed, error) {
	k := Killed{Task: t, Lost: true}
	if t.Result != nil {
		k.Result = *t.Result
	}
	// Found before the group goes, so its members are told apart.
	found := taskProcesses(reg.Home(), t.ID)
	groups := make([]int, len(found))
	for i, pid := range found {
		groups[i], _ = syscall.Getpgid(pid)
	}
	if t.PID > 0 && t.StartTicks > 0 {
		if ticks, err := bgtasks.ProcStartTicks(t.PID); err == nil && ticks == t.StartTicks {
			if err := syscall.Kill(-t.PGID, syscall.SIGKILL); err == nil {
				k.PGID = t.PGID
			}
		}
	}
	for i, pid := range found {
		if k.PGID > 0 && groups[i] == k.PGID {
			continue // went with its group
		}
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			k.PIDs = append(k.PIDs, pid)
		}
	}
	if k.PGID == 0 && len(k.PIDs) == 0 {
		return k, ErrLostGone
	}
	return k, nil
}

// taskProcesses are this user's live processes whose environment says they
// belong to task id of home.
func taskProcesses(home, id string) []int {
	idVar := []byte("\x00" + proto.TaskIDEnv + "=" + id + "\x00")
	homeVar := []byte("\x00" + proto.TaskHomeEnv + "=" + home + "\x00")
	uid := os.Getuid()
	self := os.Getpid()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		var st syscall.Stat_t
		if syscall.Stat("/proc/"+e.Name(), &st) != nil || int(st.Uid) != uid {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil {
			continue // gone, or not ours to read
		}
		env = append(append([]byte{0}, env...), 0)
		if bytes.Contains(env, idVar) && bytes.Contains(env, homeVar) {
			out = append(out, pid)
		}
	}
	return out
}

// settledRecord reads task id's record until it has ended (or been found
// lost), for at most settleFor.
func settledRecord(reg *bgtasks.Registry, id string) (*bgtasks.Task, error) {
	deadline := time.Now().Add(settleFor)
	for {
		t, err := reg.Get(id)
		if err != nil || t.State().Ended() || time.Now().After(deadline) {
			return t, err
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// settleFor bounds how long a kill that lost its supervisor waits for the
// record to say how the task ended.
const settleFor = 2 * time.Second
