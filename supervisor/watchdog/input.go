package watchdog

import (
	"fmt"
	"strings"
	"time"

	"github.com/hangdog/hangdog/supervisor/sampler"
)

// inputConfidence is the status confidence of a fast check that sees a
// process blocked reading a terminal nobody is at: certain evidence.
const inputConfidence = 0.97

// inputWatch follows one wait on the terminal across samples. The wait
// started at the latest of: the last output, the last sample that saw no
// read on the terminal, and the last moment a person was at it. Before the
// first sample after a prompt, the last output is the best estimate: a
// prompt is printed just before the read that waits for its answer.
type inputWatch struct {
	lastSample        time.Time // last sample that succeeded
	lastSampleReading bool
	notReadingAt      time.Time // last successful sample that saw no read on the terminal
	personAt          time.Time // last moment a person was at the terminal
	decidedWait       time.Time // start of the wait already acted on or vetoed; it is not decided twice
}

func (iw *inputWatch) waitStart(lastOutput, started time.Time) time.Time {
	s := lastOutputAt(lastOutput, started)
	for _, t := range []time.Time{iw.notReadingAt, iw.personAt} {
		if t.After(s) {
			s = t
		}
	}
	return s
}

// observe records a sample and reports how long the current wait has lasted
// (0 when nothing reads the terminal).
func (iw *inputWatch) observe(o Observation) (waited time.Duration, start time.Time) {
	if !o.TreeOK {
		return 0, time.Time{}
	}
	iw.lastSample = o.Now
	reading := o.Tree.ReadingTTY && !o.Interactive
	iw.lastSampleReading = reading
	if !reading {
		iw.notReadingAt = o.Now
		return 0, time.Time{}
	}
	start = iw.waitStart(o.Output.LastOutput, o.Started)
	return o.Now.Sub(start), start
}

// inputWait is what a process blocked on the terminal is waiting for.
type inputWait struct {
	kind    string
	program string
	line    string // the unfinished last line, untrusted
}

var (
	pagers  = " less more most pg man bat w3m lynx "
	editors = " vim vi nvim view vimdiff nano pico emacs emacs-nox micro hx helix kak joe jed mcedit ne "
)

func classifyInput(t sampler.Tree, lastLine string) inputWait {
	w := inputWait{program: readerName(t), line: lastLine}
	name := " " + w.program + " "
	switch {
	case t.TTYMode == sampler.TTYSecret:
		w.kind = InputSecret
	case t.TTYMode == sampler.TTYRaw && strings.Contains(pagers, name):
		w.kind = InputPager
	case t.TTYMode == sampler.TTYRaw && strings.Contains(editors, name):
		w.kind = InputEditor
	case t.TTYMode == sampler.TTYRaw:
		w.kind = InputScreen
	case strings.TrimSpace(lastLine) != "":
		w.kind = InputPrompt
	default:
		w.kind = InputStdin
	}
	return w
}

// readerName names the process reading the terminal: the sampler's reader,
// else the deepest process of the foreground group — the leader is usually
// the `bash -c` wrapper, the work happens in its children.
func readerName(t sampler.Tree) string {
	if t.ReadingTTYComm != "" {
		return t.ReadingTTYComm
	}
	if t.ForegroundPGID == 0 {
		return ""
	}
	for i := len(t.Procs) - 1; i >= 0; i-- {
		if t.Procs[i].PGID == t.ForegroundPGID {
			return t.Procs[i].Comm
		}
	}
	return ""
}

// describe says what the process waits for and whether `bg send` can help,
// for a caller that cannot see the terminal.
func (w inputWait) describe() string {
	prog := quote(w.program, 30)
	switch w.kind {
	case InputPrompt:
		return "last line " + quote(w.line, 160) + " (sending the task input answers it)"
	case InputSecret:
		s := "password prompt"
		if strings.TrimSpace(w.line) != "" {
			s += " " + quote(w.line, 160)
		}
		return s + " (echo is off; it wants a secret)"
	case InputPager:
		return "pager " + prog + " is showing output (sending the task q quits it)"
	case InputEditor:
		return "editor " + prog + " is open and waiting for keys"
	case InputScreen:
		return "full-screen program " + prog + " is waiting for keys"
	}
	return prog + " is reading the terminal with no prompt shown"
}

// advice is what to do instead of re-running the same way.
func (w inputWait) advice() string {
	switch w.kind {
	case InputPrompt:
		return "answer it non-interactively (a flag such as --yes, or the answer on stdin)"
	case InputSecret:
		return "supply credentials another way (an agent, a token or a config file), not at a password prompt"
	case InputPager:
		return "turn the pager off (--no-pager, PAGER=cat, or pipe to cat)"
	case InputEditor:
		return "pass the text without an editor (a flag such as -m, or GIT_EDITOR=true)"
	case InputScreen:
		return "use the program's batch or plain-output mode"
	}
	return "give it input on stdin or run it with </dev/null"
}

// inputReason is the caller's one line for an input decision.
func inputReason(w inputWait, interactive bool) string {
	if interactive {
		return "waiting for you: " + w.describe()
	}
	return "waiting for input: " + w.describe()
}

// inputEvidence is the sample's own account of the read.
func inputEvidence(t sampler.Tree, waited time.Duration) string {
	mode := string(t.TTYMode)
	if mode == "" {
		mode = "unknown"
	}
	s := fmt.Sprintf("%s (pid %d) blocked reading the terminal for %s, mode %s", quote(readerName(t), 30), t.ReadingTTYPID, seconds(waited), mode)
	if t.ReadingTTYBy != "" {
		s += ", seen by " + t.ReadingTTYBy
	}
	return s
}
