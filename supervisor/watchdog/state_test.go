package watchdog

import (
	"reflect"
	"testing"
	"time"

	"github.com/hangdog/hangdog/supervisor/activity"
	"github.com/hangdog/hangdog/supervisor/sampler"
)

func TestStateOf(t *testing.T) {
	tr := tree(reading(sampler.TTYSecret, "sudo"), listening("127.0.0.1:3000"), connecting("10.0.0.9:5432"),
		established("10.0.0.8:443"), cpu(12.5), disk(4<<20), timer)
	tr.ReadBytes = 1 << 20
	tr.Window = time.Second
	tr.AnyRunning = true
	o := Observation{
		Now: t0.Add(90 * time.Second), Started: t0, Command: "sudo make install", Interactive: true,
		Tree: tr, TreeOK: true,
		Output: activity.Stats{
			TotalBytes: 500, NewBytes: 40, LastOutput: t0.Add(60 * time.Second), LastLine: "[sudo] password for ann: ",
			Tail: []string{"a", "b"}, NewLines: 2, NewDistinctLines: 1, Repetition: 0.25,
		},
	}
	got := StateOf(o)
	checks := []struct {
		field     string
		got, want any
	}{
		{"Command", got.Command, "sudo make install"},
		{"Elapsed", got.Elapsed, 90 * time.Second},
		{"SinceOutput", got.SinceOutput, 30 * time.Second},
		{"Interactive", got.Interactive, true},
		{"OutputBytes", got.OutputBytes, int64(500)},
		{"NewOutputBytes", got.NewOutputBytes, int64(40)},
		{"Tail", got.Tail, []string{"a", "b"}},
		{"LastLine", got.LastLine, "[sudo] password for ann: "},
		{"NewLines", got.NewLines, 2},
		{"NewDistinctLines", got.NewDistinctLines, 1},
		{"Repetition", got.Repetition, 0.25},
		{"CPUPercent", got.CPUPercent, 12.5},
		{"DiskBytes", got.DiskBytes, int64(5 << 20)},
		{"AnyRunning", got.AnyRunning, true},
		{"TimerSleep", got.TimerSleep, true},
		{"Procs", got.Procs, 2},
		{"ReadingTTY", got.ReadingTTY, true},
		{"TTYMode", got.TTYMode, "secret"},
		{"ForegroundComm", got.ForegroundComm, "sudo"},
		{"Listening", got.Listening, []string{"127.0.0.1:3000"}},
		{"Connecting", got.Connecting, []string{"10.0.0.9:5432"}},
		{"Established", got.Established, 1},
		{"SampleComplete", got.SampleComplete, true},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %#v, want %#v", c.field, c.got, c.want)
		}
	}
}

// Disk I/O below the rate of work is the filesystem's bookkeeping (a temp
// file made and removed, a program's code paged in): the judge is told none.
func TestStateOfLeavesOutBookkeeping(t *testing.T) {
	for _, c := range []struct {
		bytes  int64
		window time.Duration
		want   int64
	}{
		{20 << 10, time.Second, 0},
		{48 << 10, 3 * time.Second, 0},
		{72 << 10, time.Second, 0},          // a writeback period's burst of bookkeeping, in one sample
		{320 << 10, time.Second, 320 << 10}, // 64 KiB/s over the 5 s a rate is measured over at least
		{1 << 20, 3 * time.Second, 1 << 20},
	} {
		tr := tree(disk(c.bytes))
		tr.Window = c.window
		st := StateOf(Observation{Now: t0.Add(10 * time.Second), Started: t0, Command: "tclsh loop.tcl", Tree: tr, TreeOK: true})
		if st.DiskBytes != c.want {
			t.Errorf("%d bytes over %v: DiskBytes = %d, want %d", c.bytes, c.window, st.DiskBytes, c.want)
		}
	}
}

func TestStateOfFailedSampleIsUnknownNotIdle(t *testing.T) {
	o := Observation{Now: t0.Add(time.Minute), Started: t0, Command: "x", Tree: tree(cpu(50), reading(sampler.TTYLine, "x")), TreeOK: false}
	st := StateOf(o)
	if st.SampleComplete || st.CPUPercent != 0 || st.ReadingTTY || st.Procs != 0 {
		t.Errorf("failed sample leaked process fields: %+v", st)
	}
	if st.SinceOutput != time.Minute {
		t.Errorf("SinceOutput with no output = %v, want the time since start", st.SinceOutput)
	}
}

func TestForegroundCommIsTheWorkNotTheWrapper(t *testing.T) {
	tr := tree(comm("npm"))
	tr.Procs = append(tr.Procs, sampler.Proc{PID: 102, PPID: 101, PGID: 100, Comm: "node"})
	if got := StateOf(Observation{Now: t0, Started: t0, Tree: tr, TreeOK: true}).ForegroundComm; got != "node" {
		t.Errorf("ForegroundComm = %q, want node", got)
	}
}

func TestStateForCountsTheWholeWindow(t *testing.T) {
	s := newSim(t, config(), "make")
	// A fast check 10 s in: busy, and some output.
	s.lines(5*time.Second, 2, 2, 0, "cc -c a.c")
	snap := s.snapshot(10 * time.Second)
	s.w.FastCheckWanted(snap, t0.Add(10*time.Second))
	fast := Observation{Now: t0.Add(10 * time.Second), Started: t0, Command: "make", TreeOK: true, Output: snap,
		Tree: tree(cpu(90), disk(6<<20))}
	fast.Tree.Time, fast.Tree.Window = fast.Now, 10*time.Second
	s.w.Fast(fast)
	s.w.Fast(fast) // the same sample and snapshot again must not count twice
	s.lastSample = fast.Now

	// The due check at 2 min: quiet for the rest of the window, three more lines.
	s.lines(100*time.Second, 3, 1, 0, "cc -c b.c")
	due := s.observe(check1, tree(disk(3<<20)), true, false)
	st := s.w.StateFor(due)
	if st2 := s.w.StateFor(due); !reflect.DeepEqual(st, st2) {
		t.Errorf("StateFor changed the Watch: %+v then %+v", st, st2)
	}
	if want := 90.0 * 10 / 120; st.CPUPercent != want {
		t.Errorf("CPUPercent = %v, want %v (90%% for 10 s of 120)", st.CPUPercent, want)
	}
	if st.DiskBytes != 9<<20 {
		t.Errorf("DiskBytes = %d, want 9 MiB", st.DiskBytes)
	}
	if st.NewLines != 5 || st.NewDistinctLines != 3 {
		t.Errorf("NewLines, NewDistinctLines = %d, %d; want 5, 3", st.NewLines, st.NewDistinctLines)
	}
	if st.NewOutputBytes != due.Output.TotalBytes {
		t.Errorf("NewOutputBytes = %d, want all %d bytes so far", st.NewOutputBytes, due.Output.TotalBytes)
	}
	s.w.Due(due)

	// The next window starts empty.
	next := s.observe(check2, tree(), true, false)
	st = s.w.StateFor(next)
	if st.CPUPercent != 0 || st.DiskBytes != 0 || st.NewLines != 0 || st.NewOutputBytes != 0 {
		t.Errorf("the next window carried counts over: %+v", st)
	}
}

func TestWindowDistinctLines(t *testing.T) {
	tests := []struct {
		name                       string
		lines, distinct, maxSingle int
		repetition                 float64
		want                       int
	}{
		{"one snapshot: exact", 10, 10, 10, 0, 10},
		{"one snapshot of a loop: exact", 36, 1, 1, 0.95, 1},
		{"one line per snapshot of a loop: capped by repetition", 36, 36, 1, 0.95, 2},
		{"one line per snapshot of a build: kept", 36, 36, 1, 0.05, 35},
		{"never below a single snapshot", 12, 12, 6, 0.9, 6},
		{"no lines", 0, 0, 0, 0, 0},
	}
	for _, tt := range tests {
		w := window{lines: tt.lines, distinct: tt.distinct, maxDistinct: tt.maxSingle}
		if got := w.distinctLines(tt.repetition); got != tt.want {
			t.Errorf("%s: distinctLines = %d, want %d", tt.name, got, tt.want)
		}
	}
}

// progress is judged over the window; quietNow only over the check's end
// (whole samples, no timer approaching): how long the tree has otherwise done
// nothing is counted from its last activity (idle_test.go).
func TestProgressAndQuietNow(t *testing.T) {
	base := evidence{treeOK: true, complete: true, windowLen: 3 * time.Minute}
	with := func(f func(*evidence)) evidence { e := base; f(&e); return e }
	tests := []struct {
		name            string
		e               evidence
		progress, quiet bool
	}{
		{"nothing at all", base, false, true},
		{"CPU just under the line", with(func(e *evidence) { e.cpu = 1.9 }), false, true},
		{"CPU at the line", with(func(e *evidence) { e.cpu = 2 }), true, true},
		{"disk I/O", with(func(e *evidence) { e.disk = 1 }), true, true},
		{"a timer", with(func(e *evidence) { e.timerSleep = true }), false, false},
		{"a spinner: output, no lines", with(func(e *evidence) { e.outputInWindow, e.newBytes = true, 400 }), false, true},
		{"distinct lines", with(func(e *evidence) { e.outputInWindow, e.lines, e.distinct, e.repetition = true, 5, 5, 0.1 }), true, true},
		{"repeating lines", with(func(e *evidence) { e.outputInWindow, e.lines, e.distinct, e.repetition = true, 30, 2, 0.9 }), false, true},
		{"incomplete sample", with(func(e *evidence) { e.complete = false }), false, false},
		{"failed sample with CPU left over", with(func(e *evidence) { e.treeOK, e.complete, e.cpu = false, false, 50 }), false, false},
	}
	for _, tt := range tests {
		p, why := tt.e.progress()
		if p != tt.progress {
			t.Errorf("%s: progress = %v (%s), want %v", tt.name, p, why, tt.progress)
		}
		if p && why == "" {
			t.Errorf("%s: progress without a reason", tt.name)
		}
		if got := tt.e.quietNow(); got != tt.quiet {
			t.Errorf("%s: quietNow = %v, want %v", tt.name, got, tt.quiet)
		}
	}
}

func TestReadySignal(t *testing.T) {
	tests := []struct {
		line string
		up   bool
		addr string
	}{
		{"  VITE v5.0.0  ready in 312 ms", true, ""},
		{"  ➜  Local:   http://localhost:5173/", true, "http://localhost:5173/"},
		{"* Listening on http://127.0.0.1:3000", true, "http://127.0.0.1:3000"},
		{"Serving HTTP on 0.0.0.0 port 8000 (http://0.0.0.0:8000/) ...", true, "http://0.0.0.0:8000/"},
		{"Starting development server at http://127.0.0.1:8000/", true, "http://127.0.0.1:8000/"},
		{"INFO:     Uvicorn running on http://127.0.0.1:8000 (Press CTRL+C to quit)", true, "http://127.0.0.1:8000"},
		{"webpack 5.90.0 compiled successfully in 1234 ms", true, ""},
		{"[12:00:01] Found 0 errors. Watching for file changes.", true, ""},
		{"Waiting for the database to be ready...", false, ""},
		{"Already up to date.", false, ""},
		{"fetching https://registry.npmjs.org/react", false, ""},
	}
	for _, tt := range tests {
		_, addr, up := readySignal(activity.Stats{Tail: []string{tt.line}})
		if up != tt.up || addr != tt.addr {
			t.Errorf("readySignal(%q) = %v %q, want %v %q", tt.line, up, addr, tt.up, tt.addr)
		}
	}
}
