package watchdog

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hangdog/hangdog/jev"
	"github.com/hangdog/hangdog/settings/watchdogconf"
	"github.com/hangdog/hangdog/supervisor/activity"
	"github.com/hangdog/hangdog/supervisor/sampler"
)

// t0 is when every simulated command starts.
var t0 = time.Date(2026, 3, 4, 12, 0, 0, 0, time.UTC)

// config is the default watchdog configuration with changes applied.
// config is the default configuration with the input wait these tests'
// timelines were written for (10 s, the default before issue 11), so each
// test states its own times instead of following the default.
func config(changes ...func(*watchdogconf.Watchdog)) watchdogconf.Watchdog {
	c := watchdogconf.Default()
	c.InputWaitSec = 10
	for _, f := range changes {
		f(&c)
	}
	return c
}

func withAction(a string) func(*watchdogconf.Watchdog) {
	return func(c *watchdogconf.Watchdog) { c.Action = a }
}

// sim plays a command's life into a Watch the way the supervisor will: output
// goes into a tracker-like state whose deltas reset at every snapshot, trees
// carry their window since the previous sample, and due checks ask the real
// local judge with the Watch's window state.
type sim struct {
	t     *testing.T
	w     *Watch
	cmd   string
	judge *jev.Judge

	out        activity.Stats // cumulative part: totals, last output, tail, last line, repetition
	pending    activity.Stats // deltas since the previous snapshot
	lastSample time.Time
}

func newSim(t *testing.T, cfg watchdogconf.Watchdog, cmd string, opts ...Option) *sim {
	t.Helper()
	return &sim{t: t, w: New(cfg, cmd, t0, opts...), cmd: cmd, judge: jev.NewJudge(jev.NewLocal(), nil), lastSample: t0}
}

// lines prints n complete lines at `at`, of which distinct differ after
// masking; rep is the tracker's repetition afterwards.
func (s *sim) lines(at time.Duration, n, distinct int, rep float64, last string) {
	bytes := int64(n * (len(last) + 1))
	s.out.TotalBytes += bytes
	s.out.LastOutput = t0.Add(at)
	s.out.LastLine = ""
	s.out.Tail = append(s.out.Tail, last)
	if len(s.out.Tail) > 20 {
		s.out.Tail = s.out.Tail[len(s.out.Tail)-20:]
	}
	s.out.Repetition = rep
	s.pending.NewBytes += bytes
	s.pending.NewLines += n
	s.pending.NewDistinctLines += distinct
}

// prompt prints an unfinished line (no newline) at `at`.
func (s *sim) prompt(at time.Duration, text string) {
	s.out.TotalBytes += int64(len(text))
	s.out.LastOutput = t0.Add(at)
	s.out.LastLine = text
	s.pending.NewBytes += int64(len(text))
}

// spin rewrites the current line (a spinner): bytes, no new lines.
func (s *sim) spin(at time.Duration, n int64) {
	s.out.TotalBytes += n
	s.out.LastOutput = t0.Add(at)
	s.pending.NewBytes += n
}

func (s *sim) snapshot(at time.Duration) activity.Stats {
	now := t0.Add(at)
	st := s.out
	st.Tail = append([]string(nil), s.out.Tail...)
	st.SinceOutput = now.Sub(lastOutputAt(s.out.LastOutput, t0))
	st.NewBytes, st.NewLines, st.NewDistinctLines = s.pending.NewBytes, s.pending.NewLines, s.pending.NewDistinctLines
	s.pending = activity.Stats{}
	return st
}

func (s *sim) observe(at time.Duration, tree sampler.Tree, ok bool, interactive bool) Observation {
	now := t0.Add(at)
	if ok {
		tree.Time = now
		tree.Window = now.Sub(s.lastSample)
		s.lastSample = now
	}
	return Observation{
		Now: now, Started: t0, Command: s.cmd, Interactive: interactive,
		Tree: tree, TreeOK: ok, Output: s.snapshot(at),
	}
}

func (s *sim) ask(o Observation) *jev.Verdict {
	s.t.Helper()
	v, err := s.judge.Ask(context.Background(), s.w.StateFor(o))
	if err != nil {
		s.t.Fatalf("judge: %v", err)
	}
	return &v
}

func (s *sim) due(at time.Duration, tree sampler.Tree, ok, interactive bool) Decision {
	o := s.observe(at, tree, ok, interactive)
	o.Verdict = s.ask(o)
	return s.w.Due(o)
}

func (s *sim) fast(at time.Duration, tree sampler.Tree, ok, interactive bool) Decision {
	return s.w.Fast(s.observe(at, tree, ok, interactive))
}

// tree builds a whole sample of a `bash -c` wrapper and its child in the
// foreground group, quiet unless changed.
func tree(changes ...func(*sampler.Tree)) sampler.Tree {
	t := sampler.Tree{
		Procs: []sampler.Proc{
			{PID: 100, PPID: 1, PGID: 100, SID: 100, Comm: "bash", State: 'S', Syscall: 61, SyscallName: "wait4"},
			{PID: 101, PPID: 100, PGID: 100, SID: 100, Comm: "worker", State: 'S'},
		},
		ForegroundPGID: 100,
		TTYMode:        sampler.TTYLine,
		Complete:       true,
	}
	for _, f := range changes {
		f(&t)
	}
	return t
}

func cpu(p float64) func(*sampler.Tree) { return func(t *sampler.Tree) { t.CPUPercent = p } }

func disk(n int64) func(*sampler.Tree) { return func(t *sampler.Tree) { t.WriteBytes = n } }

func timer(t *sampler.Tree) { t.TimerSleep = true }

func incomplete(t *sampler.Tree) { t.Complete = false }

func comm(name string) func(*sampler.Tree) {
	return func(t *sampler.Tree) { t.Procs[1].Comm = name }
}

func reading(mode sampler.TTYMode, name string) func(*sampler.Tree) {
	return func(t *sampler.Tree) {
		t.Procs[1].Comm = name
		t.TTYMode = mode
		t.ReadingTTY = true
		t.ReadingTTYPID = 101
		t.ReadingTTYComm = name
		t.ReadingTTYBy = "syscall"
	}
}

func listening(addr string) func(*sampler.Tree) {
	return func(t *sampler.Tree) {
		s := sampler.Socket{State: "LISTEN", Local: addr, Remote: "0.0.0.0:0"}
		t.Listening = append(t.Listening, s)
		t.Procs[1].Sockets = append(t.Procs[1].Sockets, s)
	}
}

func connecting(addr string) func(*sampler.Tree) {
	return func(t *sampler.Tree) {
		t.Connecting = append(t.Connecting, sampler.Socket{State: "SYN_SENT", Local: "10.0.0.2:50000", Remote: addr})
	}
}

func established(addr string) func(*sampler.Tree) {
	return func(t *sampler.Tree) {
		t.Established = append(t.Established, sampler.Socket{State: "ESTABLISHED", Local: "10.0.0.2:50000", Remote: addr})
	}
}

// want is the part of a Decision a test pins down. act, trigger and veto are
// always compared; the rest only when set.
type want struct {
	act       bool
	trigger   string
	veto      string
	action    string
	status    string
	streak    int
	inputKind string
	reason    string // a substring of Reason
	evidence  string // a substring of one of Evidence's lines
}

func (w want) check(t *testing.T, label string, d Decision) {
	t.Helper()
	bad := func(field string, got, wanted any) {
		t.Errorf("%s: %s = %v, want %v\n  decision: %s", label, field, got, wanted, d.LogLine("t"))
	}
	if d.Act != w.act {
		bad("Act", d.Act, w.act)
	}
	if d.Trigger != w.trigger {
		bad("Trigger", d.Trigger, w.trigger)
	}
	if d.Veto != w.veto {
		bad("Veto", d.Veto, w.veto)
	}
	if w.act && d.Action != w.action {
		bad("Action", d.Action, w.action)
	}
	if !w.act && d.Action != "" {
		bad("Action", d.Action, "")
	}
	if w.status != "" && d.Status != w.status {
		bad("Status", d.Status, w.status)
	}
	if w.streak != 0 && d.Streak != w.streak {
		bad("Streak", d.Streak, w.streak)
	}
	if w.inputKind != "" && d.InputKind != w.inputKind {
		bad("InputKind", d.InputKind, w.inputKind)
	}
	if w.reason != "" && !strings.Contains(d.Reason, w.reason) {
		bad("Reason", d.Reason, "…"+w.reason+"…")
	}
	if w.evidence != "" && !strings.Contains(strings.Join(d.Evidence, "\n"), w.evidence) {
		bad("Evidence", d.Evidence, "…"+w.evidence+"…")
	}
}

// step is one check of a scenario; out prints before it.
type step struct {
	at          time.Duration
	fast        bool
	out         func(s *sim)
	tree        sampler.Tree
	failed      bool // the sample failed (TreeOK false)
	interactive bool
	want        want
}

type scenario struct {
	name  string
	cfg   watchdogconf.Watchdog
	cmd   string
	opts  []Option
	steps []step
}

func (sc scenario) run(t *testing.T) {
	t.Helper()
	s := newSim(t, sc.cfg, sc.cmd, sc.opts...)
	for i, st := range sc.steps {
		if st.out != nil {
			st.out(s)
		}
		var d Decision
		if st.fast {
			d = s.fast(st.at, st.tree, !st.failed, st.interactive)
		} else {
			d = s.due(st.at, st.tree, !st.failed, st.interactive)
		}
		st.want.check(t, sc.name+" step "+strconv.Itoa(i+1)+" at "+st.at.String(), d)
	}
}

func runAll(t *testing.T, scs []scenario) {
	t.Helper()
	for _, sc := range scs {
		t.Run(sc.name, sc.run)
	}
}

const (
	check1 = 2 * time.Minute // the default due schedule: 2 min, then every 3
	check2 = 5 * time.Minute
	check3 = 8 * time.Minute
	check4 = 11 * time.Minute
	check5 = 14 * time.Minute
)
