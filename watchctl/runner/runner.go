package runner

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

// gcPercent is the runner's GOGC (run).
const gcPercent = 25

// run runs the watchers of store in this process until none is active or
// ctx ends, with conf the settings of the runner's own directory. Each
// watcher's condition is asked of the decision model its project's
// settings name, resolved with the environment its create (or last
// resume) had (watch.Store.JudgeEnv, kept by the watcher service), as
// when each watcher had a task of its own started from that environment;
// a project whose settings cannot be read falls back to conf. Beside a
// link's checks run its companions (linkCompanions): the fleet's
// deliveries (opts.Fleet), and the receiver kept running.
func run(ctx context.Context, store *watch.Store, conf *settings.Settings, opts Options, log io.Writer) error {
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
		if env, ok := store.JudgeEnv(spec.ID); ok {
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
	// (GOGC=100), so the pages of 4 MB stay resident. gcPercent
	// lowers the goal to 1 MB: 2.4 MB less resident, at the same CPU
	// (docs/benchmarks.md). A GOGC the user set is kept.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	lc := &linkCompanions{store: store, conf: conf, sink: conf.ServeSink() != "", fleet: opts.Fleet, log: log, links: map[string]bool{}}
	h := &watch.HomeRunner{Store: store, Log: log, TaskID: os.Getenv(proto.TaskIDEnv), JudgeFor: judgeFor, Companion: lc.start}
	return h.Run(ctx)
}

// linkCompanions runs what a link needs beside its checks while the runner
// runs it: its deliveries from the fleet (fleet, one per link, with
// serve.sink), and the home's receiver brought back if it dies
// (receiver.Keep: one for the home, on one of the active links, moved to
// another when that one stops; none with serve.sink, where the fleet's
// receiver serves the links).
type linkCompanions struct {
	store *watch.Store
	conf  *settings.Settings
	sink  bool // conf has serve.sink set
	fleet Fleet
	log   io.Writer

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
	go func() {
		defer close(done)
		if c.sink && c.fleet != nil {
			c.fleet(fctx, c.store, c.conf, spec.ID, log)
		}
	}()
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
	if c.sink {
		return
	}
	for id := range c.links {
		kctx, cancel := context.WithCancel(ctx)
		kept := make(chan struct{})
		go func() { defer close(kept); receiver.Keep(kctx, c.store, id, c.log) }()
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
