package jev

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"time"
)

// State is the evidence about one running command at one check, as the
// supervisor's sampler gathered it.
type State struct {
	Command     string        // the command line as given
	Elapsed     time.Duration // since the command started
	SinceOutput time.Duration // since the last byte of output
	Interactive bool          // a person is at the terminal and can type

	OutputBytes      int64    // all output so far
	NewOutputBytes   int64    // output since the last check
	Tail             []string // the last complete lines of output
	LastLine         string   // the unfinished last line (often a prompt)
	NewLines         int      // complete lines since the last check
	NewDistinctLines int      // how many of those differ from each other
	Repetition       float64  // 0..1: how much recent output repeats itself
	// Restated: the unfinished last line, redrawn since the last check,
	// says what it said then (RestateShape alike, no number of work grown).
	Restated bool

	CPUPercent float64 // of one core, the whole process tree, since the last check
	// DiskBytes: bytes read plus written on disk since the last check, when
	// they came at the rate of work; the watchdog leaves out a few pages now
	// and then, the filesystem's bookkeeping (a temp file made and removed).
	DiskBytes  int64
	AnyRunning bool // some process in the tree is on a CPU or runnable
	TimerSleep bool // a process sleeps on a timer (sleep, a poll with timeout)
	Procs      int  // processes in the tree
	// Running: the argv of the processes doing the work now (those with no
	// children), from /proc — what runs, not what the command line starts with.
	Running [][]string
	// Repeats: how many times the same short-lived command (Repeated, its
	// argv) was started since the last output — a quiet retry loop's tries.
	Repeats  int
	Repeated string

	ReadingTTY     bool   // the foreground process is blocked reading the terminal
	TTYMode        string // "line", "secret" (echo off), "raw", or "" if unknown
	ForegroundComm string // the terminal's foreground process name
	// ReadTimeout: the read on the terminal has a timeout of its own (`read
	// -t 30` waits in pselect6 with one) and gives up by itself after it.
	ReadTimeout time.Duration

	Listening   []string // listening sockets, "127.0.0.1:3000"
	Connecting  []string // connections not yet established (SYN_SENT)
	Established int      // established connections
	// PeerSilent: every established connection sent a request and has
	// received nothing since, for this long — at least since the last check
	// (the watchdog leaves it 0 otherwise, and for a forwarder's session).
	PeerSilent time.Duration

	// SampleComplete is false when /proc could not be read in full; then the
	// process fields above are missing, not zero, and never mean idle.
	SampleComplete bool
}

// Fingerprint is a stable hash of the fields a decision depends on, coarsened
// so that a state that has not meaningfully changed hashes the same: times
// fall into widening buckets (10 s, 30 s, 1 m, 2 m, 5 m, 10 m, then
// doubling), CPU into a few bands, and output into whether any arrived and
// how varied it was — not its bytes, which change with every spinner frame.
func (s State) Fingerprint() string {
	var b strings.Builder
	field := func(name string, v any) { fmt.Fprintf(&b, "%s=%v\x00", name, v) }
	field("cmd", s.Command)
	field("interactive", s.Interactive)
	field("elapsed", timeBucket(s.Elapsed))
	field("silence", timeBucket(s.SinceOutput))
	field("output", s.NewOutputBytes > 0)
	field("lines", countBucket(s.NewLines))
	field("distinct", countBucket(s.NewDistinctLines))
	field("repetition", int(s.Repetition*10+0.5))
	field("last", strings.TrimSpace(s.LastLine))
	field("restated", s.Restated)
	field("complete", s.SampleComplete)
	if s.SampleComplete {
		field("cpu", cpuBand(s.CPUPercent))
		field("disk", s.DiskBytes > 0)
		field("running", s.AnyRunning)
		field("timer", s.TimerSleep)
		field("procs", s.Procs)
		field("repeats", countBucket(s.Repeats))
		field("running", s.Running)
		field("tty", s.ReadingTTY)
		field("mode", s.TTYMode)
		field("comm", s.ForegroundComm)
		field("readtimeout", s.ReadTimeout)
		field("listen", sortedJoin(s.Listening))
		field("connect", sortedJoin(s.Connecting))
		field("established", countBucket(s.Established))
		peer := -1 // no request awaits an answer
		if s.PeerSilent > 0 {
			peer = timeBucket(s.PeerSilent)
		}
		field("peersilent", peer)
	}
	h := fnv.New64a()
	h.Write([]byte(b.String()))
	return fmt.Sprintf("%016x", h.Sum64())
}

// timeBucket numbers the widening bucket d falls in.
func timeBucket(d time.Duration) int {
	edges := [...]time.Duration{10 * time.Second, 30 * time.Second, time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute}
	for i, e := range edges {
		if d < e {
			return i
		}
	}
	n := len(edges)
	for e := 20 * time.Minute; d >= e && n < 64; e *= 2 {
		n++
	}
	return n
}

func countBucket(n int) int {
	switch {
	case n <= 0:
		return 0
	case n == 1:
		return 1
	case n <= 4:
		return 2
	case n <= 20:
		return 3
	default:
		return 4
	}
}

func cpuBand(p float64) int {
	switch {
	case p < 1:
		return 0
	case p < 5:
		return 1
	case p < 25:
		return 2
	case p < 75:
		return 3
	default:
		return 4
	}
}

func sortedJoin(xs []string) string {
	c := slices.Clone(xs)
	slices.Sort(c)
	return strings.Join(c, ",")
}
