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
	reading := readingTTY(o.Tree) && !o.Interactive
	iw.lastSampleReading = reading
	if !reading {
		iw.notReadingAt = o.Now
		return 0, time.Time{}
	}
	start = iw.waitStart(o.Output.LastOutput, o.Started)
	return o.Now.Sub(start), start
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
	call := t.ReadingTTYSyscall
	if call == "" {
		call = "an unknown call"
	}
	timeout := "no timeout"
	switch {
	case t.ReadingTTYTimed && t.ReadingTTYTimeout > 0:
		timeout = "timeout " + seconds(t.ReadingTTYTimeout)
	case t.ReadingTTYTimed:
		timeout = "a timeout it did not show"
	}
	s := fmt.Sprintf("%s (pid %d, argv[0] %s) blocked in %s (%s) reading the terminal for %s, mode %s",
		quote(readerName(t), 30), t.ReadingTTYPID, quote(argv0(t, t.ReadingTTYPID), 40), call, timeout, seconds(waited), mode)
	if t.ReadingTTYBy != "" {
		s += ", seen by " + t.ReadingTTYBy
	}
	return s
}

// argv0 is the first word of a process's argv ("" when unknown).
func argv0(t sampler.Tree, pid int) string {
	for _, p := range t.Procs {
		if p.PID == pid && len(p.Argv) > 0 {
			return p.Argv[0]
		}
	}
	return ""
}

// timersEvidence names the timed waits that keep a tree from being idle:
// pid, argv[0], the call and its timeout.
func timersEvidence(t sampler.Tree) string {
	if len(t.Timers) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("timer pending: ")
	for i, tm := range t.Timers {
		if i == 3 {
			fmt.Fprintf(&b, " and %d more", len(t.Timers)-i)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		timeout := "timeout unknown"
		switch {
		case tm.Timeout > 0 && tm.Absolute:
			timeout = seconds(tm.Timeout) + " left"
		case tm.Timeout > 0:
			timeout = "timeout " + seconds(tm.Timeout)
		}
		who := fmt.Sprintf("pid %d", tm.PID)
		if tm.TID != tm.PID {
			who += fmt.Sprintf(" thread %d", tm.TID)
		}
		fmt.Fprintf(&b, "%s %s (%s) in %s, %s", quote(tm.Comm, 20), who, quote(argv0(t, tm.PID), 30), tm.Syscall, timeout)
	}
	return b.String()
}

// readingTTY: a process waits for someone to type. A forwarder (ssh,
// telnet, nc, `docker exec -it`) reads the terminal only to pass keys on; it
// waits on its connection, and is judged by it.
func readingTTY(t sampler.Tree) bool { return t.ReadingTTY && !t.Forwarding }

// blockedEvidence names what the working processes (those with no
// children) are blocked in when no timer is pending: the evidence an idle
// decision rests on — pid, argv[0], the call and that it has no timeout.
func blockedEvidence(t sampler.Tree) string {
	var parts []string
	for _, p := range t.Procs {
		if p.Children > 0 || (p.State != 'S' && p.State != 'D') {
			continue
		}
		call := p.SyscallName
		switch {
		case call == "" && p.Wchan != "":
			call = "wchan " + p.Wchan
		case call == "":
			call = "an unknown call"
		}
		parts = append(parts, fmt.Sprintf("%s pid %d (%s) in %s, no timeout", quote(p.Comm, 20), p.PID, quote(argv0(t, p.PID), 30), call))
		if len(parts) == 3 {
			break
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "blocked: " + strings.Join(parts, "; ")
}
