package watchdog

import (
	"time"

	"github.com/hangdog/hangdog/jev"
	"github.com/hangdog/hangdog/supervisor/sampler"
)

// StateOf maps one observation to the evidence the judge reads. Counters
// (CPU, disk, new output) are the deltas the observation carries, that is
// since the previous sample and snapshot; at a due check ask the judge with
// Watch.StateFor, which counts them over the whole window instead.
//
// When the sample failed, the process fields stay empty and SampleComplete is
// false: the judge must read them as unknown, not as idle.
func StateOf(o Observation) jev.State {
	st := jev.State{
		Command:     o.Command,
		Elapsed:     max(o.Now.Sub(o.Started), 0),
		SinceOutput: sinceOutput(o),
		Interactive: o.Interactive,

		OutputBytes:      o.Output.TotalBytes,
		NewOutputBytes:   o.Output.NewBytes,
		Tail:             o.Output.Tail,
		LastLine:         o.Output.LastLine,
		NewLines:         o.Output.NewLines,
		NewDistinctLines: o.Output.NewDistinctLines,
		Repetition:       repetition(o.Output.Repetition, o.Output.Redrawing),

		SampleComplete: o.TreeOK && o.Tree.Complete,
	}
	if !o.TreeOK {
		return st
	}
	t := o.Tree
	st.CPUPercent = t.CPUPercent
	st.DiskBytes = diskWork(t.ReadBytes+t.WriteBytes, t.Window)
	st.AnyRunning = t.AnyRunning
	st.TimerSleep = t.TimerSleep
	st.Procs = len(t.Procs)
	st.ReadingTTY = readingTTY(t)
	if st.ReadingTTY && inputWaitFor(t, 0) > 0 {
		st.ReadTimeout = t.ReadingTTYTimeout // a bounded read (see inputWaitFor)
	}
	st.TTYMode = string(t.TTYMode)
	st.ForegroundComm = readerName(t)
	st.Running = runningArgv(t)
	st.Listening = socketEnds(t.Listening, false)
	st.Connecting = socketEnds(t.Connecting, true)
	st.Established = len(t.Established)
	return st
}

// StateFor is StateOf for a due check, with CPU, disk and output counted over
// the whole window since the previous due check — including the samples and
// snapshots of the fast checks in between — rather than since the last
// sample. It changes nothing: Due, called next with the same observation,
// judges the same window.
func (w *Watch) StateFor(o Observation) jev.State {
	w.seeTimers(&o)
	win := w.win
	win.add(o)
	e := measure(win, o)
	st := StateOf(o)
	st.NewOutputBytes = max(e.newBytes, 0)
	st.NewLines = e.lines
	st.NewDistinctLines = e.distinct
	st.Repetition = e.repetition
	st.SampleComplete = e.complete
	st.Restated = e.lines == 0 && e.newBytes > 0 && w.redrawn.same(o.Output.LastLine)
	st.PeerSilent = peerSilent(o, e.windowLen)
	if o.TreeOK {
		st.CPUPercent = e.cpu
		st.DiskBytes = e.disk
		st.TimerSleep = e.timerSleep
		// Counting is idempotent, so doing it here changes nothing Due sees.
		w.respawns.update(o.Tree, o.Output.LastOutput)
		st.Repeats, st.Repeated = w.respawns.n, w.respawns.top
	}
	return st
}

// socketEnds lists the local end of listening sockets ("127.0.0.1:3000"),
// or the remote end of connections being made (what it is trying to reach).
func socketEnds(socks []sampler.Socket, remote bool) []string {
	if len(socks) == 0 {
		return nil
	}
	out := make([]string, 0, len(socks))
	for _, s := range socks {
		if remote {
			out = append(out, s.Remote)
		} else {
			out = append(out, s.Local)
		}
	}
	return out
}

// runningArgv lists the argv of the processes that do the work now: those
// with no children, the `bash -c` wrapper left out (at most 8).
func runningArgv(t sampler.Tree) [][]string {
	var out [][]string
	for i, p := range t.Procs {
		if p.Children > 0 || len(p.Argv) == 0 || (i == 0 && len(t.Procs) > 1) {
			continue
		}
		out = append(out, p.Argv)
		if len(out) == 8 {
			break
		}
	}
	return out
}

// peerSilent is how long a request of the tree has gone unanswered, when it
// has been so since the previous due check at least (the checks' horizon:
// the window, less a second for the connection's own start), and the
// connection is not a forwarder's session (ssh host 'sleep 15' answers when
// the remote command does). 0 otherwise.
func peerSilent(o Observation, window time.Duration) time.Duration {
	t := o.Tree
	if !o.TreeOK || t.PeerSilent <= 0 || t.ReadingTTY && t.Forwarding {
		return 0
	}
	if t.PeerSilent+time.Second < window {
		return 0
	}
	return t.PeerSilent
}
