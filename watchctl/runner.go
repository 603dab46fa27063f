package watchctl

import (
	"context"
	"io"
	"os"
	"runtime"
	"sync"

	"github.com/hangdog/hangdog/settings"
	"github.com/hangdog/hangdog/supervisor/proto"
	"github.com/hangdog/hangdog/watch"
)

// Run runs the home's watchers in this process (what `hangdog __watch`,
// the task ensureRunner starts, does) until none is active or ctx ends.
// Each watcher's condition is asked of the decision model its project's
// settings name, resolved with the environment its create (or last
// resume) had (keepJudgeEnv), as when each watcher had a task of its own
// started from that environment; a project whose settings cannot be read
// falls back to the runner's own directory's.
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
	h := &watch.HomeRunner{Store: s.store, Log: log, TaskID: os.Getenv(proto.TaskIDEnv), JudgeFor: judgeFor}
	return h.Run(ctx)
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
