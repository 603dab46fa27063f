package watchctl

import (
	"context"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/hangdog/hangdog/receiver"
	"github.com/hangdog/hangdog/settings"
	"github.com/hangdog/hangdog/supervisor/proto"
	"github.com/hangdog/hangdog/watch"
)

// runnerGCPercent is the runner's GOGC (Service.Run).
const runnerGCPercent = 25

// Run runs the home's watchers in this process (what RunnerProgram, the
// task ensureRunner starts, does) until none is active or ctx ends.
// Each watcher's condition is asked of the decision model its project's
// settings name, resolved with the environment its create (or last
// resume) had (keepJudgeEnv), as when each watcher had a task of its own
// started from that environment; a project whose settings cannot be read
// falls back to the runner's own directory's. Beside a link's checks run
// its companions (linkCompanions): the fleet's deliveries, and the
// receiver kept running.
func (s *Service) Run(ctx context.Context, log io.Writer) error {
	conf, err := s.settings()
	if err != nil {
		return err
	}
	var mu sync.Mutex
	byProject := map[string]*settings.Settings{}
	judgeFor := func(spec *watch.Spec) (watch.Judge, string) {
		mu.Lock()
		st, ok := byProject[spec.Project]
		if !ok {
			st = conf
			if spec.Project != "" {
				if p, err := settings.Load(settings.Options{Dir: spec.Project, KeepGoing: true}); err == nil {
					st = p
				}
			}
			byProject[spec.Project] = st
		}
		mu.Unlock()
		getenv := os.Getenv
		if env, ok := s.store.JudgeEnv(spec.ID); ok {
			getenv = func(k string) string { return env[k] }
		}
		judge, note, _ := watch.JudgeFor(st.Watchdog().DecisionModel, getenv)
		return judge, note
	}
	// The runner's work is waiting (on timers, inotify, the network, a
	// command): one P is enough, and it spares the thread hand-offs of
	// the others — half the runner's context switches per check,
	// measured (docs/benchmarks.md). Set here, for the runner's process
	// only: the commands it runs do not inherit it.
	runtime.GOMAXPROCS(1)
	// Its live heap is under 1 MB with 50 watchers (GODEBUG=gctrace=1),
	// its garbage each check's reads; Go's default keeps a 4 MB heap goal
	// (GOGC=100), so the pages of 4 MB stay resident. runnerGCPercent
	// lowers the goal to 1 MB: 2.4 MB less resident, at the same CPU
	// (docs/benchmarks.md). A GOGC the user set is kept.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(runnerGCPercent)
	}
	lc := &linkCompanions{s: s, log: log, links: map[string]bool{}}
	h := &watch.HomeRunner{Store: s.store, Log: log, TaskID: os.Getenv(proto.TaskIDEnv), JudgeFor: judgeFor, Companion: lc.start}
	return h.Run(ctx)
}

// linkCompanions runs what a link needs beside its checks while the runner
// runs it: its deliveries from the fleet (consumeFleet, one per link, with
// serve.sink), and the home's receiver brought back if it dies
// (receiver.Keep: one for the home, on one of the active links, moved to
// another when that one stops; none with serve.sink, where the fleet's
// receiver serves the links).
type linkCompanions struct {
	s   *Service
	log io.Writer

	mu       sync.Mutex
	links    map[string]bool
	keepID   string
	keepStop func()
}

// start starts spec's companions; stop ends them and waits.
func (c *linkCompanions) start(ctx context.Context, spec *watch.Spec) (stop func()) {
	if spec.Link == nil {
		return func() {}
	}
	log := prefixed{c.log, spec.ID}
	fctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); c.s.consumeFleet(fctx, spec.ID, log) }()
	c.mu.Lock()
	c.links[spec.ID] = true
	c.keep(ctx)
	c.mu.Unlock()
	return func() {
		cancel()
		<-done
		c.mu.Lock()
		delete(c.links, spec.ID)
		c.keep(ctx)
		c.mu.Unlock()
	}
}

// keep runs one receiver.Keep while a link is active, on one of them.
// Called under mu.
func (c *linkCompanions) keep(ctx context.Context) {
	if c.keepID != "" && c.links[c.keepID] {
		return
	}
	if c.keepStop != nil {
		c.keepStop()
		c.keepID, c.keepStop = "", nil
	}
	if c.s.sinkSet() {
		return
	}
	for id := range c.links {
		kctx, cancel := context.WithCancel(ctx)
		kept := make(chan struct{})
		go func() { defer close(kept); receiver.Keep(kctx, c.s.store, id, c.log) }()
		c.keepID, c.keepStop = id, func() { cancel(); <-kept }
		return
	}
}

// prefixed is the runner's log as a link's companion writes it: each line
// with the time and the watcher's id, as the runner's own lines have.
type prefixed struct {
	w  io.Writer
	id string
}

func (p prefixed) Write(b []byte) (int, error) {
	if p.w == nil {
		return len(b), nil
	}
	if _, err := io.WriteString(p.w, time.Now().UTC().Format(time.RFC3339)+" "+p.id+" "+string(b)); err != nil {
		return 0, err
	}
	return len(b), nil
}

// keepJudgeEnv records, for watcher id's runner, the environment variables
// the decision model is resolved from as this caller has them (the runner
// is one process for every watcher, started from whichever caller came
// first). It returns JudgeFor's note and whether a model will be asked.
func (s *Service) keepJudgeEnv(id string, conf *settings.Settings) (note string, asks bool) {
	if conf == nil {
		return "", false
	}
	env := map[string]string{}
	_, note, asks = watch.JudgeFor(conf.Watchdog().DecisionModel, func(k string) string {
		v := os.Getenv(k)
		env[k] = v
		return v
	})
	_ = s.store.SetJudgeEnv(id, env) // without it, the runner's own environment
	return note, asks
}
