package watchctl

import (
	"context"
	"io"
	"os"

	"github.com/hangdog/hangdog/receiver"
	"github.com/hangdog/hangdog/watch"
)

// Run runs watcher id's loop in this process (what `hangdog __watch ID`,
// the task startRunner starts, does) until it is paused, deleted or
// expired, or ctx ends; a link's runner also restarts the receiver if it
// dies meanwhile (receiver.Keep). The decision model is resolved here,
// from this task's settings and environment: those of the create or
// resume that started it.
func (s *Service) Run(ctx context.Context, id string, log io.Writer) error {
	conf, err := s.settings()
	if err != nil {
		return err
	}
	judge, note, _ := watch.JudgeFor(conf.Watchdog().DecisionModel, os.Getenv)
	r := &watch.Runner{Store: s.store, ID: id, Log: log, Judge: judge, JudgeNote: note}
	// A link's deliveries come from the fleet while the runner runs.
	fleetCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); s.consumeFleet(fleetCtx, id, log) }()
	defer func() { stop(); <-done }()
	if w, err := s.store.Lookup(id); err == nil && w.Spec.Link != nil && !s.sinkSet() {
		// A link's runner also keeps the receiver its link needs running:
		// nothing else would restart one that was killed. (With serve.sink
		// the fleet's receiver serves the link; none runs here.)
		kctx, cancel := context.WithCancel(ctx)
		kept := make(chan struct{})
		go func() { defer close(kept); receiver.Keep(kctx, s.store, id, log) }()
		defer func() { cancel(); <-kept }()
	}
	return r.Run(ctx)
}
