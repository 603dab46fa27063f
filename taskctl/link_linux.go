//go:build linux

package taskctl

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"syscall"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/supervisor/proto"
)

// Link is a caller's connection to the supervisor of the task it started.
// Its task's files are found through the registry (OutputPath,
// SupervisorLogPath), which owns their layout.
type Link struct {
	TaskID string
	reg    *bgtasks.Registry

	conn    net.Conn
	fr      *proto.FrameReader
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

// The contract's types, under the names front ends use.
type (
	Spec     = proto.Spec
	Detach   = proto.Detach
	LeftProc = proto.LeftProc
	Verdict  = proto.Verdict
	Status   = proto.Status
)

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
	kind, p, err := l.fr.Next()
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) || errors.Is(err, syscall.ECONNRESET) {
			return Event{}, true, ErrSupervisorGone
		}
		return Event{}, true, err
	}
	switch kind {
	case proto.FrameStarted:
		var si proto.Started
		json.Unmarshal(p, &si)
		return Event{Kind: EventStarted, PID: si.PID}, true, nil
	case proto.FrameOffset:
		if n, ok := proto.DecodeOffset(p); ok {
			l.avail = max(l.avail, n)
		}
		return Event{}, false, nil
	case proto.FrameDetached:
		var d Detach
		if err := json.Unmarshal(p, &d); err != nil {
			return Event{}, true, fmt.Errorf("decode detach notice: %w", err)
		}
		l.avail = max(l.avail, d.OutputBytes)
		l.pending = &Event{Kind: EventDetached, Detach: &d}
		return Event{}, false, nil
	case proto.FrameWarning:
		return Event{Kind: EventWarning, Message: string(p)}, true, nil
	case proto.FrameVerdict:
		var v Verdict
		if err := json.Unmarshal(p, &v); err != nil {
			return Event{}, true, fmt.Errorf("decode verdict: %w", err)
		}
		return Event{Kind: EventVerdict, Verdict: &v}, true, nil
	case proto.FrameEnded:
		var wr proto.Result
		if err := json.Unmarshal(p, &wr); err != nil {
			return Event{}, true, fmt.Errorf("decode result: %w", err)
		}
		r := resultRecord(wr)
		l.avail = max(l.avail, r.OutputBytes)
		l.pending = &Event{Kind: EventEnded, Result: &r}
		return Event{}, false, nil
	case proto.FrameFailed:
		return Event{Kind: EventFailed, Message: string(p)}, true, nil
	case proto.FrameData:
		if err := l.takeData(p); err != nil {
			return Event{}, true, err
		}
		return Event{}, false, nil
	}
	return Event{}, true, fmt.Errorf("unknown frame %q: %w", kind, proto.ErrCorruptLink)
}

// nextOutput hands out the next part of the log the supervisor announced.
func (l *Link) nextOutput() (Event, error) {
	if l.log == nil {
		f, err := os.Open(l.OutputPath())
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

func (l *Link) write(kind proto.Frame, p []byte) error {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	return proto.WriteFrame(l.conn, kind, p)
}

// OutputPath is the task's output log, which outlives any link.
func (l *Link) OutputPath() string { return l.reg.OutputPath(l.TaskID) }

// SupervisorLogPath is where the task's supervisor wrote what it printed:
// the place to look when it failed.
func (l *Link) SupervisorLogPath() string { return l.reg.SupervisorLogPath(l.TaskID) }

// Input writes bytes to the task's terminal, as if typed.
func (l *Link) Input(p []byte) error { return l.write(proto.FrameInput, p) }

// Resize sets the task's terminal size.
func (l *Link) Resize(rows, cols uint16) error {
	return l.write(proto.FrameResize, proto.EncodeResize(rows, cols))
}

// Stop asks the supervisor to stop the whole task with sig, then SIGKILL.
func (l *Link) Stop(sig syscall.Signal) error { return l.write(proto.FrameStop, []byte{byte(sig)}) }

// Close lets go of the task. A foreground task whose caller closes its link
// without a detach is killed; a background one goes on.
func (l *Link) Close() error {
	if l.log != nil {
		l.log.Close()
	}
	return l.conn.Close()
}
