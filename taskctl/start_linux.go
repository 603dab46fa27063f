//go:build linux

package taskctl

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/fleet/autostart"
	"github.com/hangdog/hangdog/supervisor/proto"
	"github.com/hangdog/hangdog/supervisor/spawn"
)

// Executable, when set, is the program Start runs as a supervisor (tests and
// front ends that are not the hangdog binary set it). Otherwise Start uses
// hangdog-supervisor next to the running binary, else the binary itself.
var Executable = ""

// Start registers a task, spawns its supervisor in a session of its own and
// returns the link to it. The command starts running at once.
func Start(reg *bgtasks.Registry, spec Spec) (*Link, error) {
	if err := checkSpec(spec); err != nil {
		return nil, err
	}
	p, err := Prestart(spec.Env)
	if err != nil {
		return nil, err
	}
	return p.Start(reg, spec)
}

func checkSpec(spec Spec) error {
	if len(spec.Argv) == 0 && spec.Command == "" {
		return errors.New("nothing to run: give a command, e.g. `hangdog run -- make test`")
	}
	return nil
}

// Pending is a supervisor process started before its task is registered:
// its start-up overlaps with the caller resolving settings and creating the
// task. Exactly one of Start or Cancel must follow.
type Pending struct {
	conn  net.Conn
	pid   int
	ticks uint64
	// env is the environment the process was started with: a task whose
	// environment differs gets its own in the hand-over.
	env []string
	// exited is closed once the process has exited and been reaped (nil
	// for an adopted one, which this process does not reap).
	exited chan struct{}
}

// Prestart starts a supervisor process that waits for its task. env is the
// environment of the supervisor and of the command it will run (nil: this
// process's); it travels by exec, never through a file, as it may hold
// secrets.
func Prestart(env []string) (*Pending, error) {
	exe, err := supervisorBinary()
	if err != nil {
		return nil, err
	}
	if env == nil {
		env = os.Environ()
	}
	p, err := spawn.Start(exe, env)
	if err != nil {
		return nil, err
	}
	// The supervisor is this process's child until it exits; this goroutine
	// reaps it so a long-lived caller (the shell, the MCP server) leaves no
	// zombies. It ends when the supervisor does.
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		reapChild(p.PID)
	}()
	pending, err := adopt(p, env)
	if pending != nil {
		pending.exited = exited
	}
	return pending, err
}

// Adopt takes charge of a supervisor started by spawn.Start with this
// process's environment (cmd/hangdog starts a run's from a package
// initialiser, see earlyrun). It does not reap it: that suits a process
// that exits with its run, as the CLI does, leaving the supervisor to init.
// A long-lived caller uses Prestart.
func Adopt(p spawn.Process) (*Pending, error) { return adopt(p, os.Environ()) }

func adopt(p spawn.Process, env []string) (*Pending, error) {
	conn, err := net.FileConn(p.Link)
	p.Link.Close()
	if err != nil {
		syscall.Kill(p.PID, syscall.SIGKILL)
		return nil, fmt.Errorf("open caller link: %w", err)
	}
	ticks, _ := bgtasks.ProcStartTicks(p.PID)
	return &Pending{conn: conn, pid: p.PID, ticks: ticks, env: env}, nil
}

func reapChild(pid int) {
	for {
		var ws syscall.WaitStatus
		if _, err := syscall.Wait4(pid, &ws, 0, nil); err != syscall.EINTR {
			return
		}
	}
}

// Cancel lets the supervisor go without a task: it exits and nothing is
// registered.
func (p *Pending) Cancel() { p.conn.Close() }

// Start registers the task and hands it to the waiting supervisor, which
// starts the command at once.
func (p *Pending) Start(reg *bgtasks.Registry, spec Spec) (*Link, error) {
	if err := checkSpec(spec); err != nil {
		p.Cancel()
		return nil, err
	}
	if spec.Mode == "" {
		spec.Mode = bgtasks.Foreground
	}
	// The supervisor's PID is known before the task exists, so a supervisor
	// that dies before it reports is found lost at once, not after a timeout.
	task, err := reg.Create(bgtasks.Meta{
		Command: spec.Command, Argv: spec.Argv, Shell: spec.Shell, Cwd: spec.Cwd,
		Started: time.Now(), Mode: spec.Mode, State: bgtasks.Starting, Caller: callerKind(spec.Interactive),
		SupervisorPID: p.pid, SupervisorTicks: p.ticks,
		Owner: spec.Owner, Project: spec.Project, QuietEnd: spec.QuietEnd,
	})
	if err != nil {
		p.Cancel()
		return nil, err
	}
	if spec.ForwardEvents {
		// Before the hand-over: the forwarder's cursor is registered
		// before this task can end, so its end is published.
		if err := autostart.Ensure(reg); err != nil {
			fmt.Fprintf(os.Stderr, "hangdog: warning: events.sink is set but the forwarder could not be started: %v\n  this home's events wait in its log; `hangdog fleet forward` runs it by hand\n", err)
		}
	}
	hand := proto.Handover{Home: reg.Home(), Task: wireTask(task.Meta), Spec: spec}
	env := spec.Env
	if env == nil {
		env = os.Environ()
	}
	if !slices.Equal(env, p.env) {
		// Started ahead with another environment (a spare, see Fits): the
		// task's own goes with it, over the link like the rest.
		hand.Env, hand.OwnEnv = env, true
	}
	h, err := proto.EncodeHandover(hand)
	if err == nil {
		err = proto.WriteFrame(p.conn, proto.FrameHandover, h)
	}
	if err != nil {
		p.Cancel()
		res := bgtasks.Result{State: bgtasks.Exited, ExitCode: 127, Ended: time.Now(), Reason: "could not start: its supervisor exited before taking the task"}
		reg.WriteResult(task.ID, res)
		return nil, fmt.Errorf("hand task %s to its supervisor: %w", task.ID, err)
	}
	l := &Link{TaskID: task.ID, reg: reg, conn: p.conn}
	// Buffered, so a frame's header and payload cost one read, not two.
	// Frames are small (output travels through the log), and a larger one
	// is still read whole, in more reads.
	l.fr = proto.NewFrameReader(bufio.NewReaderSize(p.conn, 16<<10))
	return l, nil
}

// supervisorBinary is the program a supervisor runs as. It is resolved once:
// the shell and the MCP server start many tasks.
var supervisorBinary = sync.OnceValues(func() (string, error) {
	if Executable != "" {
		return Executable, nil
	}
	return spawn.Binary()
})

func callerKind(interactive bool) string {
	if interactive {
		return "tty"
	}
	return "agent"
}

// Exited is closed once a supervisor from Prestart has exited and been
// reaped; never for an adopted one.
func (p *Pending) Exited() <-chan struct{} { return p.exited }
