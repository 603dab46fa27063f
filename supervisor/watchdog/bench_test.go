package watchdog

import (
	"context"
	"testing"
	"time"

	"github.com/hangdog/hangdog/jev"
	"github.com/hangdog/hangdog/supervisor/sampler"
)

// BenchmarkDueCheck is one due check as the supervisor runs it: the window
// state, the local judge, the decision and its log line.
func BenchmarkDueCheck(b *testing.B) {
	judge := jev.NewJudge(jev.NewLocal(), nil)
	s := &sim{w: New(config(), "npm run dev", t0), cmd: "npm run dev", lastSample: t0}
	s.lines(3*time.Second, 6, 6, 0, "  ➜  Local:   http://localhost:5173/")
	tr := tree(comm("node"), listening("127.0.0.1:5173"))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		at := check1 + time.Duration(i)*3*time.Minute
		o := s.observe(at, tr, true, false)
		v, err := judge.Ask(context.Background(), s.w.StateFor(o))
		if err != nil {
			b.Fatal(err)
		}
		o.Verdict = &v
		_ = s.w.Due(o).LogLine("t1")
	}
}

// BenchmarkFastCheck is the cheap path run up to every second while a
// command is silent: the wanted test and a fast decision.
func BenchmarkFastCheck(b *testing.B) {
	s := &sim{w: New(config(), "./install.sh", t0), cmd: "./install.sh", lastSample: t0}
	s.prompt(time.Second, "Overwrite? [y/N] ")
	tr := tree(reading(sampler.TTYLine, "bash"))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		at := 2*time.Second + time.Duration(i)*time.Second
		if s.w.FastCheckWanted(s.snapshot(at), t0.Add(at)) {
			_ = s.w.Fast(s.observe(at, tr, true, false))
		}
	}
}
