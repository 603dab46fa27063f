package watchdog

import (
	"testing"
	"time"

	"github.com/hangdog/hangdog/settings/watchdogconf"
	"github.com/hangdog/hangdog/supervisor/sampler"
)

// shortChecks is the corpora's short timings: a due check at 3 s, then every
// 3 s, agreeChecks 2. The supervisor's first sample, at 1 s, is a fast check.
func shortChecks(c *watchdogconf.Watchdog) { c.FirstCheckMin, c.IntervalMin = 0.05, 0.05 }

const sec = time.Second

// firstSample marks the sampler's first sample (sampler.Tree.First).
func firstSample(t *sampler.Tree) { t.First = true }

// Idle is counted from the last activity (idle.go): a line or start-up CPU
// early in the first window does not push the act to the third due check.
func TestIdleCountsFromTheLastActivity(t *testing.T) {
	runAll(t, []scenario{
		{
			name: "a line at the start, then nothing: acted on at the second due check",
			cfg:  config(shortChecks), cmd: "./server",
			steps: []step{
				{at: 1 * sec, fast: true, out: func(s *sim) { s.lines(50*time.Millisecond, 1, 1, 0, "listening") }, tree: tree(cpu(30))},
				{at: 2 * sec, fast: true, tree: tree()},
				{at: 3 * sec, tree: tree(), want: want{status: "progressing"}},
				{at: 4 * sec, fast: true, tree: tree()},
				{at: 5 * sec, fast: true, tree: tree()},
				{at: 6 * sec, tree: tree(), want: want{act: true, trigger: TriggerIdle, action: ActionBackground, status: "stuck", streak: 2,
					reason: "no CPU, disk I/O or output for 5s"}},
			},
		},
		{
			name: "busy into the later half of the first window: not idle at the first check",
			cfg:  config(shortChecks), cmd: "./server",
			steps: []step{
				{at: 1 * sec, fast: true, tree: tree(cpu(30))},
				{at: 2 * sec, fast: true, tree: tree(cpu(30))},
				{at: 3 * sec, tree: tree()},
				{at: 6 * sec, tree: tree(), want: want{status: "stuck", streak: 1}},
				{at: 9 * sec, tree: tree(), want: want{act: true, trigger: TriggerIdle, action: ActionBackground, streak: 2}},
			},
		},
		{
			name: "a line late in the first window: not idle at the first check",
			cfg:  config(shortChecks), cmd: "./server",
			steps: []step{
				{at: 2 * sec, fast: true, tree: tree()},
				{at: 3 * sec, out: func(s *sim) { s.lines(2500*time.Millisecond, 1, 1, 0, "listening") }, tree: tree()},
				{at: 6 * sec, tree: tree(), want: want{status: "stuck"}},
				{at: 9 * sec, tree: tree(), want: want{act: true, trigger: TriggerIdle, action: ActionBackground}},
			},
		},
		{
			name: "activity in the middle of a streak starts it again",
			cfg:  config(shortChecks), cmd: "./server",
			steps: []step{
				{at: 3 * sec, tree: tree(), want: want{status: "stuck"}},
				{at: 4 * sec, fast: true, tree: tree(disk(1 << 20))},
				{at: 6 * sec, tree: tree()},
				{at: 9 * sec, tree: tree(), want: want{act: true, trigger: TriggerIdle, action: ActionBackground, streak: 2,
					reason: "for 5s"}},
			},
		},
		{
			// Tcl's exec makes and removes a temp file for every child: the
			// kernel charges the pages that reads and dirties, a few at a
			// time (the most measured: 20 KiB in one second).
			name: "the filesystem's bookkeeping is not activity",
			cfg:  config(shortChecks), cmd: "tclsh loop.tcl",
			steps: []step{
				{at: 1 * sec, fast: true, tree: tree(disk(20 << 10))},
				{at: 3 * sec, tree: tree(disk(8 << 10)), want: want{status: "stuck", streak: 1}},
				{at: 4 * sec, fast: true, tree: tree(disk(16 << 10))},
				{at: 6 * sec, tree: tree(disk(4 << 10)), want: want{act: true, trigger: TriggerIdle, action: ActionBackground, streak: 2,
					evidence: "no disk I/O but the filesystem's bookkeeping (20.0 KiB, under 64.0 KiB/s)"}},
			},
		},
		{
			name: "disk I/O at the rate of work is activity",
			cfg:  config(shortChecks), cmd: "./server",
			steps: []step{
				{at: 3 * sec, tree: tree(), want: want{status: "stuck", streak: 1}},
				{at: 4 * sec, fast: true, tree: tree(disk(1 << 20))},
				{at: 6 * sec, tree: tree(), want: want{status: "progressing"}},
			},
		},
		{
			name: "agreeChecks 3 after a line at the start: the model agrees on the two idle windows",
			cfg:  config(shortChecks, func(c *watchdogconf.Watchdog) { c.AgreeChecks = 3 }), cmd: "./server",
			steps: []step{
				{at: 1 * sec, fast: true, out: func(s *sim) { s.lines(50*time.Millisecond, 1, 1, 0, "listening") }, tree: tree()},
				{at: 3 * sec, tree: tree(), want: want{status: "progressing"}},
				{at: 6 * sec, tree: tree(), want: want{status: "stuck"}},
				{at: 9 * sec, tree: tree(), want: want{act: true, trigger: TriggerIdle, action: ActionBackground, streak: 3}},
			},
		},
		{
			name: "a failed sample is activity",
			cfg:  config(shortChecks), cmd: "./server",
			steps: []step{
				{at: 2 * sec, fast: true, failed: true},
				{at: 3 * sec, tree: tree()},
				{at: 6 * sec, tree: tree()},
				{at: 9 * sec, tree: tree(), want: want{act: true, trigger: TriggerIdle, action: ActionBackground}},
			},
		},
	})
}

// A spinner turning from the start restates its line at the first due check:
// the line it is compared with is the first the window saw.
func TestARedrawFromTheStartIsARestatementAtTheFirstCheck(t *testing.T) {
	spin := func(at time.Duration, frame string) func(*sim) {
		return func(s *sim) { s.prompt(at, frame+" resolving dependencies") }
	}
	runAll(t, []scenario{
		{
			name: "a spinner over nothing is looping at the first check, acted on at the second",
			cfg:  config(shortChecks), cmd: "./fetch-deps",
			steps: []step{
				// The supervisor's first sample: its I/O is the start-up's,
				// prorated, not the window's.
				{at: 1 * sec, fast: true, out: spin(900*time.Millisecond, "|"), tree: tree(firstSample, disk(2))},
				{at: 3 * sec, out: spin(2900*time.Millisecond, "/"), tree: tree(), want: want{status: "looping"}},
				{at: 6 * sec, out: spin(5900*time.Millisecond, "-"), tree: tree(), want: want{act: true, trigger: TriggerLooping, action: ActionBackground}},
			},
		},
		{
			name: "a bar that advances is not a restatement",
			cfg:  config(shortChecks), cmd: "./fetch-deps",
			steps: []step{
				{at: 1 * sec, fast: true, out: func(s *sim) { s.prompt(900*time.Millisecond, "downloading 10%") }, tree: tree()},
				{at: 3 * sec, out: func(s *sim) { s.prompt(2900*time.Millisecond, "downloading 40%") }, tree: tree(), want: want{status: "progressing"}},
				{at: 6 * sec, out: func(s *sim) { s.prompt(5900*time.Millisecond, "downloading 70%") }, tree: tree(), want: want{status: "progressing"}},
			},
		},
	})
}

// A loop's `sleep 1` is counted as started again from every sample, fast or
// due: one first seen by a due check is not a bound of its own.
func TestALoopsSleepSeenAtFastChecksIsNoBound(t *testing.T) {
	try := func(pid int, argv ...string) func(*sampler.Tree) {
		return func(t *sampler.Tree) {
			t.Procs[1].Argv, t.Procs[1].Comm, t.Procs[1].PID, t.Procs[1].StartTicks = argv, argv[0], pid, uint64(pid)
		}
	}
	sleep := func(pid int) sampler.Tree { return tree(try(pid, "sleep", "1")) }
	runAll(t, []scenario{{
		name: "until python3 connects; do sleep 1; done",
		cfg:  config(shortChecks), cmd: `until python3 -c 'import socket; socket.create_connection(("127.0.0.1", 1))'; do sleep 1; done`,
		steps: []step{
			{at: 1 * sec, fast: true, tree: sleep(201)},
			{at: 2 * sec, fast: true, tree: sleep(203)},
			{at: 3 * sec, tree: tree(try(204, "python3", "-c", "import socket")), want: want{status: "looping"}},
			{at: 4 * sec, fast: true, tree: sleep(207)},
			{at: 5 * sec, fast: true, tree: sleep(209)},
			{at: 6 * sec, tree: sleep(211), want: want{act: true, trigger: TriggerLooping, action: ActionBackground}},
		},
	}})
}
