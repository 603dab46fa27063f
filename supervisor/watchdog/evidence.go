package watchdog

import (
	"fmt"
	"time"

	"github.com/hangdog/hangdog/jev"
)

// evidence is what one due check measured over its window.
type evidence struct {
	now       time.Time
	windowLen time.Duration

	treeOK   bool // this check's sample succeeded
	complete bool // this check's sample and every sample in the window were whole

	cpu  float64
	disk int64 // disk I/O at the rate of work (disk.go), else 0
	// bookkeeping: the window's disk I/O when it came below that rate,
	// named in the evidence and counted as nothing.
	bookkeeping int64
	timerSleep  bool

	newBytes       int64
	outputInWindow bool
	lines          int
	distinct       int
	repetition     float64
	sinceOutput    time.Duration
	advancing      string // a line whose number of work keeps growing (jev.Advancing), when the window has new lines
}

func measure(w window, o Observation) evidence {
	newBytes := o.Output.TotalBytes - w.startBytes
	rep := repetition(o.Output.Repetition, w.redrawing || o.Output.Redrawing)
	windowLen := o.Now.Sub(w.start)
	disk := diskWork(w.disk, windowLen)
	return evidence{
		now:            o.Now,
		windowLen:      windowLen,
		treeOK:         o.TreeOK,
		complete:       o.TreeOK && o.Tree.Complete && !w.incomplete,
		cpu:            w.cpuPercent(o.Tree),
		disk:           disk,
		bookkeeping:    w.disk - disk,
		timerSleep:     w.timerSleep && (!o.TreeOK || o.Tree.TimerSleep),
		newBytes:       newBytes,
		outputInWindow: newBytes > 0 || o.Output.LastOutput.After(w.start),
		lines:          w.lines,
		distinct:       w.distinctLines(rep),
		repetition:     rep,
		sinceOutput:    sinceOutput(o),
		advancing:      advancingIn(w.lines, o.Output.Tail),
	}
}

// advancingIn is the window's line whose number of work keeps growing, if
// it printed lines: output that counts work done is progress, however alike
// its lines look once masked (issue 23, cause 2).
func advancingIn(lines int, tail []string) string {
	if lines == 0 {
		return ""
	}
	line, ok := jev.Advancing(tail)
	if !ok {
		return ""
	}
	return line
}

// repetition is the output's repetition as the watchdog and the judge should
// read it: lines a progress display redraws in place (docker pull, npm,
// cargo) repeat by design and are not a loop.
func repetition(r float64, redrawing bool) float64 {
	if redrawing {
		return 0
	}
	return r
}

// sinceOutput is how long the command has been silent; a command that never
// printed has been silent since it started.
func sinceOutput(o Observation) time.Duration {
	last := lastOutputAt(o.Output.LastOutput, o.Started)
	if d := o.Now.Sub(last); d > 0 {
		return d
	}
	return 0
}

func lastOutputAt(last, started time.Time) time.Time {
	if last.IsZero() || last.Before(started) {
		return started
	}
	return last
}

// outputProgress: new lines that differ from each other, in output that is
// not mostly repeating itself. A spinner rewriting one line adds bytes but
// no lines; a retry loop adds lines that mask to the same text.
func (e evidence) outputProgress() bool {
	return e.distinct > 0 && e.repetition < repetitiveAt
}

// progress says whether the window shows work being done, and which.
func (e evidence) progress() (bool, string) {
	switch {
	case e.treeOK && e.cpu >= idleCPUPercent:
		return true, fmt.Sprintf("progress: CPU %.0f%% over %s", e.cpu, seconds(e.windowLen))
	case e.treeOK && e.disk > 0:
		return true, fmt.Sprintf("progress: %s of disk I/O over %s", bytesText(e.disk), seconds(e.windowLen))
	case e.outputProgress():
		return true, fmt.Sprintf("progress: %d new distinct lines of output over %s", e.distinct, seconds(e.windowLen))
	case e.advancing != "":
		return true, "progress: a number of work keeps growing in " + quote(e.advancing, 80)
	}
	return false, ""
}

// quietNow: every sample of the window was whole and nothing sleeps on a
// timer that approaches at the check (a timer will wake it; that is waiting by
// design). How long the tree has done nothing else — no CPU, disk I/O or
// output — is counted from its last activity (idle.go), not over the window.
func (e evidence) quietNow() bool {
	return e.complete && !e.timerSleep
}

// lines describes the window in words for the log and the caller.
func (e evidence) describe() []string {
	var out []string
	if !e.treeOK {
		out = append(out, "the process tree could not be sampled")
	} else {
		s := fmt.Sprintf("CPU %.1f%% over %s", e.cpu, seconds(e.windowLen))
		switch {
		case e.disk > 0:
			s += fmt.Sprintf(", %s disk I/O", bytesText(e.disk))
		case e.bookkeeping > 0:
			s += fmt.Sprintf(", no disk I/O but the filesystem's bookkeeping (%s, under %s/s)", bytesText(e.bookkeeping), bytesText(diskWorkPerSecond))
		default:
			s += ", no disk I/O"
		}
		if e.timerSleep {
			s += ", sleeping on a timer"
		}
		if !e.complete {
			s += " (sample incomplete)"
		}
		out = append(out, s)
	}
	if e.outputInWindow {
		s := fmt.Sprintf("%s new output, %d lines (%d distinct)", bytesText(max(e.newBytes, 0)), e.lines, e.distinct)
		if e.repetition >= repetitiveAt {
			s += fmt.Sprintf(", repetition %.2f", e.repetition)
		}
		out = append(out, s)
	} else {
		out = append(out, "no new output for "+seconds(e.sinceOutput))
	}
	return out
}

func bytesText(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// seconds prints a duration as whole seconds ("450s"), or tenths under ten.
func seconds(d time.Duration) string {
	if d < 10*time.Second && d%time.Second != 0 {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return fmt.Sprintf("%ds", int64(d.Round(time.Second)/time.Second))
}
