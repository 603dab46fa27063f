package tui

import (
	"bytes"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/internal/termtext/screen"
	"github.com/hangdog/hangdog/settings"
	"github.com/hangdog/hangdog/taskctl"
)

// foreground is the command the shell is running: its link, and the two
// goroutines that move its output. pump reads the link into the queue;
// feed parses it into the scrollback, or, while a full-screen program owns
// the terminal, writes it there raw. Both end when the link does.
type foreground struct {
	link     *taskctl.Link
	id       string
	command  string
	started  time.Time
	watchdog settings.Watchdog

	out   *scrollback
	mail  *mailbox
	queue *linkQueue

	mu      sync.Mutex
	sink    sinkMode
	pending bytes.Buffer // full-screen output waiting for the terminal
	term    io.Writer
	leave   chan struct{} // closed when the full-screen program gives the terminal back
	exit    altExitScanner
	ownAlt  bool          // the program switched to the alternate screen itself
	ended   chan struct{} // closed when the link is finished
}

type sinkMode int

const (
	sinkScreen   sinkMode = iota // parse into the scrollback
	sinkPending                  // a full-screen program started; hold its output for the terminal
	sinkTerminal                 // write raw to the terminal
	sinkDiscard                  // detached while full screen: its output is no longer ours
)

// maxPending bounds full-screen output held before the terminal is handed
// over; a program repaints on the resize that follows anyway.
const maxPending = 1 << 20

// Messages the foreground posts to the model.
type (
	startedMsg struct {
		fg  *foreground
		pid int
	}
	warningMsg struct {
		fg   *foreground
		text string
	}
	fullscreenMsg struct{ fg *foreground }
	finishedMsg   struct {
		fg      *foreground
		result  *bgtasks.Result
		detach  *taskctl.Detach
		failure string // the command could not start
		lost    error  // the supervisor vanished
	}
)

func startForeground(reg *bgtasks.Registry, spec taskctl.Spec, out *scrollback, mail *mailbox) (*foreground, error) {
	link, err := taskctl.Start(reg, spec)
	if err != nil {
		return nil, err
	}
	f := &foreground{
		link: link, id: link.TaskID, command: spec.Command, started: time.Now(), watchdog: spec.Watchdog,
		out: out, mail: mail, queue: newLinkQueue(), ended: make(chan struct{}),
	}
	go f.pump()
	go f.feed()
	return f, nil
}

// pump reads the link until it is finished.
func (f *foreground) pump() {
	out, err := f.link.Follow(func(ev taskctl.Event) error {
		if ev.Kind == taskctl.EventOutput {
			f.queue.pushOutput(ev.Output)
			return nil
		}
		e := ev
		f.queue.pushEvent(queued{ev: &e})
		return nil
	})
	if err != nil {
		out = taskctl.Outcome{Kind: taskctl.Lost, TaskID: f.id, Err: err}
	}
	f.queue.pushEvent(queued{outcome: &out})
}

// feed moves queued output to its sink and events to the model, in order.
func (f *foreground) feed() {
	defer f.link.Close()
	for {
		for _, it := range f.queue.takeAll() {
			switch {
			case it.out != nil:
				f.deliver(it.out)
			case it.outcome != nil:
				f.finish(taskctl.Present[finishedMsg](*it.outcome, f))
				return
			default:
				f.event(it.ev)
			}
		}
	}
}

// The foreground presents how its run came back as the model's message;
// the model says it (Model.finished).
func (f *foreground) Ended(o taskctl.Outcome) finishedMsg {
	return finishedMsg{fg: f, result: o.Result}
}
func (f *foreground) Detached(o taskctl.Outcome) finishedMsg {
	return finishedMsg{fg: f, detach: o.Detach}
}
func (f *foreground) Failed(o taskctl.Outcome) finishedMsg {
	return finishedMsg{fg: f, failure: o.Message}
}
func (f *foreground) Lost(o taskctl.Outcome) finishedMsg { return finishedMsg{fg: f, lost: o.Err} }

// event handles one event before the run's outcome.
func (f *foreground) event(ev *taskctl.Event) {
	switch ev.Kind {
	case taskctl.EventStarted:
		f.mail.post(startedMsg{fg: f, pid: ev.PID})
	case taskctl.EventWarning:
		f.mail.post(warningMsg{fg: f, text: ev.Message})
	case taskctl.EventVerdict:
		if v := ev.Verdict; v != nil {
			f.mail.post(VerdictMsg{TaskID: f.id, Status: v.Status, Confidence: v.Confidence, Streak: v.Streak, Need: v.Agree})
		}
	}
}

// finish releases a full-screen hand-over first: the terminal must come back
// before the model hears the command is over.
func (f *foreground) finish(msg finishedMsg) {
	f.mu.Lock()
	if f.sink != sinkScreen && f.leave != nil {
		closeOnce(f.leave)
	}
	f.sink = sinkDiscard
	f.mu.Unlock()
	close(f.ended)
	f.mail.post(msg)
}

// deliver sends output to the scrollback, or to the terminal while a
// full-screen program has it, switching at the alternate-screen sequences.
func (f *foreground) deliver(p []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for len(p) > 0 {
		switch f.sink {
		case sinkScreen:
			n, err := f.out.write(p)
			p = p[n:]
			f.mail.markDirty()
			var full *screen.FullScreenError
			if errors.As(err, &full) {
				f.sink = sinkPending
				f.pending.Reset()
				f.pending.Write(full.Seq)
				f.leave = make(chan struct{})
				f.exit = newExitScanner(full.AltScreen)
				f.ownAlt = full.AltScreen
				f.mail.post(fullscreenMsg{fg: f})
			}
		case sinkPending, sinkTerminal:
			chunk, rest, left := f.exit.split(p)
			p = rest
			if f.sink == sinkTerminal {
				f.term.Write(chunk)
			} else if f.pending.Len()+len(chunk) <= maxPending {
				f.pending.Write(chunk)
			}
			if left {
				// The program gave the screen back; the hand-over ends
				// once the terminal has what it wrote until then.
				closeOnce(f.leave)
				f.sink = sinkScreen
			}
		case sinkDiscard:
			return
		}
	}
}

func closeOnce(c chan struct{}) {
	select {
	case <-c:
	default:
		close(c)
	}
}

// altExitScanner finds the end of a full-screen session in a stream, even
// when the sequence is split across reads: leaving the alternate screen, or
// for a program that only switched to application cursor keys (top),
// switching them back.
type altExitScanner struct {
	seqs  [][]byte
	carry []byte
}

var (
	altExitSeqs  = [][]byte{[]byte("\x1b[?1049l"), []byte("\x1b[?1047l"), []byte("\x1b[?47l")}
	keysExitSeqs = append([][]byte{[]byte("\x1b[?1l")}, altExitSeqs...)
)

func newExitScanner(altScreen bool) altExitScanner {
	if altScreen {
		return altExitScanner{seqs: altExitSeqs}
	}
	return altExitScanner{seqs: keysExitSeqs}
}

// split returns the output up to and including a leave sequence, the rest
// after it, and whether one was found.
func (s *altExitScanner) split(p []byte) (chunk, rest []byte, found bool) {
	joined := append(s.carry, p...)
	best := -1
	var seqLen int
	for _, seq := range s.seqs {
		if i := bytes.Index(joined, seq); i >= 0 && (best < 0 || i < best) {
			best, seqLen = i, len(seq)
		}
	}
	if best < 0 {
		// Keep a tail that could be the start of a sequence.
		keep := min(len(joined), 7)
		if i := bytes.LastIndexByte(joined[len(joined)-keep:], 0x1b); i >= 0 {
			s.carry = append(s.carry[:0:0], joined[len(joined)-keep+i:]...)
		} else {
			s.carry = s.carry[:0]
		}
		return p, nil, false
	}
	end := best + seqLen - len(s.carry) // index in p just after the sequence
	s.carry = nil
	return p[:end], p[end:], true
}
