//go:build linux

package supervisor

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/supervisor/spawn"
)

// Executable, when set, is the program Start runs as a supervisor (tests and
// front ends that are not the hangdog binary set it). Otherwise Start uses
// hangdog-supervisor next to the running binary, else the binary itself.
var Executable = ""

// Link is a caller's connection to the supervisor of the task it started.
type Link struct {
	TaskID string
	Dir    string

	conn    net.Conn
	fr      frameReader
	writeMu sync.Mutex

	// Output is read from the task's log, not carried by the link: the
	// supervisor only says how many bytes the log holds.
	log     *os.File
	copied  int64  // bytes of the log handed out so far
	avail   int64  // bytes the supervisor said the log holds
	pending *Event // an end or detach, delivered once the output before it is
	outBuf  []byte
	sink    *os.File
	inline  inlineOutput // output the log could not take (a full disk)
}

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
	p, err := spawn.Start(exe, env)
	if err != nil {
		return nil, err
	}
	// The supervisor is this process's child until it exits; this goroutine
	// reaps it so a long-lived caller (the shell, the MCP server) leaves no
	// zombies. It ends when the supervisor does.
	go reapChild(p.PID)
	return Adopt(p)
}

// Adopt takes charge of a supervisor started by spawn.Start (cmd/hangdog
// starts a run's from a package initialiser, see earlyrun). It does not
// reap it: that suits a process that exits with its run, as the CLI does,
// leaving the supervisor to init. A long-lived caller uses Prestart.
func Adopt(p spawn.Process) (*Pending, error) {
	conn, err := net.FileConn(p.Link)
	p.Link.Close()
	if err != nil {
		syscall.Kill(p.PID, syscall.SIGKILL)
		return nil, fmt.Errorf("open caller link: %w", err)
	}
	ticks, _ := bgtasks.ProcStartTicks(p.PID)
	return &Pending{conn: conn, pid: p.PID, ticks: ticks}, nil
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
	})
	if err != nil {
		p.Cancel()
		return nil, err
	}
	h, err := encodeHandover(handover{Home: reg.Home(), Meta: task.Meta, Spec: spec})
	if err == nil {
		err = writeFrame(p.conn, frameHandover, h)
	}
	if err != nil {
		p.Cancel()
		res := bgtasks.Result{State: bgtasks.Exited, ExitCode: 127, Ended: time.Now(), Reason: "could not start: its supervisor exited before taking the task"}
		reg.WriteResult(task.ID, res)
		return nil, fmt.Errorf("hand task %s to its supervisor: %w", task.ID, err)
	}
	l := &Link{TaskID: task.ID, Dir: task.Dir, conn: p.conn}
	// Buffered, so a frame's header and payload cost one read, not two.
	// Frames are small (output travels through the log), and a larger one
	// is still read whole, in more reads.
	l.fr = frameReader{r: bufio.NewReaderSize(p.conn, 16<<10)}
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

// EventKind says what a Link event carries.
type EventKind int

const (
	EventStarted EventKind = iota + 1
	EventOutput
	EventDetached
	EventWarning
	EventEnded
	EventFailed  // the command could not be started; Message says why
	EventVerdict // the watchdog checked the task; Verdict says what it saw
)

// Event is one thing the supervisor told its caller. Output is valid only
// until the next call to Next.
type Event struct {
	Kind    EventKind
	PID     int
	Output  []byte // nil when the output went to the file given to CopyOutputTo
	Written int64  // output bytes this event stands for
	Detach  *Detach
	Result  *bgtasks.Result
	Verdict *Verdict
	Message string
}

// Verdict is the outcome of one watchdog check, as a status bar shows it:
// "stuck 0.92 (1/2)", or "waiting for you" when a person is at the terminal.
type Verdict struct {
	Status     string  `json:"status"`
	Confidence float64 `json:"confidence"`
	Streak     int     `json:"streak"`
	Agree      int     `json:"agree"` // checks in a row needed to act
	Trigger    string  `json:"trigger,omitempty"`
	Veto       string  `json:"veto,omitempty"`
	Input      string  `json:"input,omitempty"` // what a process blocked on the terminal waits for
	Due        bool    `json:"due"`
}

// ErrSupervisorGone means the link closed without an end, detach or failure:
// the supervisor died. The task's output is still on disk.
var ErrSupervisorGone = errors.New("the task's supervisor exited without reporting a result")

// ErrOutputClosed means the file given to CopyOutputTo no longer takes
// output (a closed pipe): nobody reads the run any more.
var ErrOutputClosed = errors.New("the output's reader is gone")

// outputChunk bounds one EventOutput's bytes.
const outputChunk = 256 << 10

// CopyOutputTo sends the task's output straight from its log to f, inside
// the kernel where it can (copy_file_range), instead of through Event.Output.
func (l *Link) CopyOutputTo(f *os.File) { l.sink = f }

// Next returns the next event. All output the log held when the task ended
// or was detached comes before EventEnded or EventDetached; after those, or
// EventFailed, the link is finished.
func (l *Link) Next() (Event, error) {
	for {
		if l.copied < l.avail {
			return l.nextOutput()
		}
		if len(l.inline.queue) > 0 {
			return l.nextInline()
		}
		if l.pending != nil {
			ev := *l.pending
			l.pending = nil
			return ev, nil
		}
		ev, done, err := l.readFrame()
		if err != nil || done {
			return ev, err
		}
	}
}

// readFrame handles one frame: it returns an event to deliver now (done),
// or records what the frame said and asks for more.
func (l *Link) readFrame() (Event, bool, error) {
	kind, p, err := l.fr.next()
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) || errors.Is(err, syscall.ECONNRESET) {
			return Event{}, true, ErrSupervisorGone
		}
		return Event{}, true, err
	}
	switch kind {
	case frameStarted:
		var si startedInfo
		json.Unmarshal(p, &si)
		return Event{Kind: EventStarted, PID: si.PID}, true, nil
	case frameOffset:
		if len(p) == 8 {
			l.avail = max(l.avail, int64(binary.BigEndian.Uint64(p)))
		}
		return Event{}, false, nil
	case frameDetached:
		var d Detach
		if err := json.Unmarshal(p, &d); err != nil {
			return Event{}, true, fmt.Errorf("decode detach notice: %w", err)
		}
		l.avail = max(l.avail, d.OutputBytes)
		l.pending = &Event{Kind: EventDetached, Detach: &d}
		return Event{}, false, nil
	case frameWarning:
		return Event{Kind: EventWarning, Message: string(p)}, true, nil
	case frameVerdict:
		var v Verdict
		if err := json.Unmarshal(p, &v); err != nil {
			return Event{}, true, fmt.Errorf("decode verdict: %w", err)
		}
		return Event{Kind: EventVerdict, Verdict: &v}, true, nil
	case frameEnded:
		var r bgtasks.Result
		if err := json.Unmarshal(p, &r); err != nil {
			return Event{}, true, fmt.Errorf("decode result: %w", err)
		}
		l.avail = max(l.avail, r.OutputBytes)
		l.pending = &Event{Kind: EventEnded, Result: &r}
		return Event{}, false, nil
	case frameFailed:
		return Event{Kind: EventFailed, Message: string(p)}, true, nil
	case frameData:
		if err := l.takeData(p); err != nil {
			return Event{}, true, err
		}
		return Event{}, false, nil
	}
	return Event{}, true, fmt.Errorf("unknown frame %q: %w", kind, errCorruptLink)
}

// nextOutput hands out the next part of the log the supervisor announced.
func (l *Link) nextOutput() (Event, error) {
	if l.log == nil {
		f, err := os.Open(filepath.Join(l.Dir, "output.log"))
		if err != nil {
			return Event{}, fmt.Errorf("read task %s's output: %w", l.TaskID, err)
		}
		l.log = f
	}
	want := l.avail - l.copied
	if l.sink != nil {
		n, err := io.Copy(l.sink, io.LimitReader(l.log, want))
		l.copied += n
		if err != nil {
			return Event{}, fmt.Errorf("%w: %v", ErrOutputClosed, err)
		}
		if n < want {
			l.avail = l.copied // the log is shorter than announced: never wait for it
		}
		return Event{Kind: EventOutput, Written: n}, nil
	}
	if l.outBuf == nil {
		l.outBuf = make([]byte, outputChunk)
	}
	n, err := io.ReadFull(l.log, l.outBuf[:min(want, outputChunk)])
	l.copied += int64(n)
	if err != nil && n == 0 {
		l.avail = l.copied
		if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			return Event{}, fmt.Errorf("read task %s's output: %w", l.TaskID, err)
		}
	}
	return Event{Kind: EventOutput, Output: l.outBuf[:n], Written: int64(n)}, nil
}

func (l *Link) write(kind byte, p []byte) error {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	return writeFrame(l.conn, kind, p)
}

// Input writes bytes to the task's terminal, as if typed.
func (l *Link) Input(p []byte) error { return l.write(frameInput, p) }

// Resize sets the task's terminal size.
func (l *Link) Resize(rows, cols uint16) error {
	return l.write(frameResize, []byte{byte(rows >> 8), byte(rows), byte(cols >> 8), byte(cols)})
}

// Stop asks the supervisor to stop the whole task with sig, then SIGKILL.
func (l *Link) Stop(sig syscall.Signal) error { return l.write(frameStop, []byte{byte(sig)}) }

// Close lets go of the task. A foreground task whose caller closes its link
// without a detach is killed; a background one goes on.
func (l *Link) Close() error {
	if l.log != nil {
		l.log.Close()
	}
	return l.conn.Close()
}
