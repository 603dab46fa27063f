package taskctl

import (
	"fmt"
	"strconv"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/supervisor/proto"
)

// What every front end says about a task, put together one way; each front
// end chooses its own words (EndWords) and its duration style.

// EndWords names the ways a task can end, in one front end's words.
// DescribeEnd asks for them in the same order for every front end.
type EndWords interface {
	Lost() string
	Killed(r *bgtasks.Result) string
	Signaled(r *bgtasks.Result) string // ended by a signal it was not sent by hangdog
	Exited(r *bgtasks.Result) string
}

// DescribeEnd says how a task ended ("running" if it has not).
func DescribeEnd(r *bgtasks.Result, w EndWords) string {
	switch {
	case r == nil:
		return "running"
	case r.State == bgtasks.Lost:
		return w.Lost()
	case r.State == bgtasks.Killed:
		return w.Killed(r)
	case r.Signal != "":
		return w.Signaled(r)
	}
	return w.Exited(r)
}

// TerseWords are the short words of the CLI and the shell: "exited 1",
// "killed by SIGTERM", "killed, exited 0" (it caught the signal and exited),
// "ended by SIGSEGV" (a signal hangdog did not send), "lost".
type TerseWords struct{}

func (TerseWords) Lost() string { return "lost" }
func (TerseWords) Killed(r *bgtasks.Result) string {
	if r.Signal != "" {
		return "killed by " + r.Signal
	}
	return fmt.Sprintf("killed, exited %d", r.ExitCode)
}
func (TerseWords) Signaled(r *bgtasks.Result) string { return "ended by " + r.Signal }
func (TerseWords) Exited(r *bgtasks.Result) string   { return fmt.Sprintf("exited %d", r.ExitCode) }

// EventResult is the end an event announces (exited, killed, lost), as a
// result DescribeEnd can say; nil for any other event.
func EventResult(e bgtasks.Event) *bgtasks.Result {
	r := &bgtasks.Result{Signal: e.Signal}
	switch e.Kind {
	case bgtasks.EventExited:
		r.State = bgtasks.Exited
	case bgtasks.EventKilled:
		r.State = bgtasks.Killed
	case bgtasks.EventLost:
		r.State = bgtasks.Lost
	default:
		return nil
	}
	if e.ExitCode != nil {
		r.ExitCode = *e.ExitCode
	}
	return r
}

// RoundDuration rounds d as a person reads it: to a tenth of a second, to
// the second above ten.
func RoundDuration(d time.Duration) time.Duration {
	if d > 10*time.Second {
		return d.Round(time.Second)
	}
	return d.Round(100 * time.Millisecond)
}

// DurationStyle is how a duration is written.
type DurationStyle []durationStep

// durationStep writes durations below its bound.
type durationStep struct {
	below time.Duration // 0: any
	say   func(d time.Duration) string
}

var (
	// Spoken is for sentences: "40 ms", "4.2 s", "45 s", "3 min 32 s",
	// "2 h 5 min".
	Spoken = DurationStyle{
		{time.Second, func(d time.Duration) string { return fmt.Sprintf("%d ms", d.Milliseconds()) }},
		{10 * time.Second, func(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }},
		{2 * time.Minute, func(d time.Duration) string { return fmt.Sprintf("%d s", int(d.Round(time.Second).Seconds())) }},
		{2 * time.Hour, func(d time.Duration) string {
			d = d.Round(time.Second)
			return fmt.Sprintf("%d min %d s", int(d.Minutes()), int(d.Seconds())%60)
		}},
		{0, func(d time.Duration) string {
			d = d.Round(time.Minute)
			return fmt.Sprintf("%d h %d min", int(d.Hours()), int(d.Minutes())%60)
		}},
	}
	// Compact is for tables, short and exact enough to compare at a glance:
	// seconds up to ten minutes ("212s"), then minutes, hours, days.
	Compact = DurationStyle{
		{time.Second, func(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s" }},
		{10 * time.Minute, func(d time.Duration) string { return strconv.Itoa(int(d.Seconds())) + "s" }},
		{time.Hour, func(d time.Duration) string { return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60) }},
		{24 * time.Hour, func(d time.Duration) string { return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60) }},
		{0, func(d time.Duration) string { return fmt.Sprintf("%dd%02dh", int(d.Hours())/24, int(d.Hours())%24) }},
	}
)

// Format writes d in this style.
func (s DurationStyle) Format(d time.Duration) string {
	for _, st := range s {
		if st.below == 0 || d < st.below {
			return st.say(d)
		}
	}
	return d.String()
}

// DescribeLeft names what a command left running when it exited, as every
// front end says it: "pid 123 python3 -m http.server 0 (listening on
// 127.0.0.1:8000), pid 124 …".
func DescribeLeft(left []proto.LeftProc) string { return proto.DescribeLeft(left) }
