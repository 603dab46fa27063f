package watchctl

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/hangdog/hangdog/receiver/sink"
	"github.com/hangdog/hangdog/settings"
	"github.com/hangdog/hangdog/watch"
)

// The fleet (serve.sink): links made here are called at the fleet
// receiver, whose address $HANGDOG_RECEIVER_URL gives, and reach this
// home through NATS JetStream (package receiver/sink). The service
// registers a link there when it is made or resumed, withdraws it when it
// is paused or its session ends and removes it when it is deleted; the
// watcher's runner consumes its deliveries (consumeFleet, in
// hangdog-full's runner: RunHome). Without serve.sink none
// of this runs and no connection is made.

// sinkSet says whether serve.sink is set for the caller's directory.
func (s *Service) sinkSet() bool {
	conf, err := s.settings()
	return err == nil && conf.ServeSink() != ""
}

// withFleet runs fn on the fleet's links over a connection of its own.
func (s *Service) withFleet(ctx context.Context, fn func(*sink.Fleet) error) error {
	conf, err := s.settings()
	if err != nil {
		return err
	}
	return dialFleet(ctx, conf, fn)
}

// dialFleet runs fn on the fleet (conf's serve.sink) over a connection of
// its own.
func dialFleet(ctx context.Context, conf *settings.Settings, fn func(*sink.Fleet) error) error {
	f, err := sink.Dial(ctx, conf, "hangdog links")
	if err != nil {
		return err
	}
	defer f.Close()
	return fn(f)
}

// register makes w's link callable at the fleet receiver: its record
// (with a signed link's secret: the receiver verifies signatures) under
// its token's hash, and the hits counted here so far.
func (s *Service) register(ctx context.Context, w *watch.Watcher, owner string) error {
	secret := ""
	if w.Spec.Kind == watch.KindWebhook && w.Spec.Link.Signature != "" {
		var err error
		if secret, err = s.store.LinkSecret(w.Spec.ID, owner); err != nil {
			return err
		}
	}
	conf, err := s.settings()
	if err != nil {
		return err
	}
	rec, err := sink.RecordFor(w, secret, sink.SandboxName(conf))
	if err != nil {
		return err
	}
	err = s.withFleet(ctx, func(f *sink.Fleet) error {
		return f.Register(ctx, w.Spec.Link.TokenHash, rec, s.store.LinkHits(w.Spec.ID))
	})
	if err != nil {
		return fmt.Errorf("register the link at the fleet (serve.sink): %w", err)
	}
	return nil
}

// unregister withdraws w's link from the fleet receiver (a pause, the
// end of its session), or removes all it kept of it (a delete). A watcher
// that is no link, or serve.sink unset, is nothing to do.
func (s *Service) unregister(ctx context.Context, w *watch.Watcher, remove bool) error {
	if w == nil || w.Spec == nil || w.Spec.Link == nil || !s.sinkSet() {
		return nil
	}
	hash := w.Spec.Link.TokenHash
	err := s.withFleet(ctx, func(f *sink.Fleet) error {
		if remove {
			return f.Remove(ctx, hash)
		}
		return f.Withdraw(ctx, hash)
	})
	if err != nil {
		return fmt.Errorf("watcher %s: the fleet receiver (serve.sink) may still take its link: %w", w.Spec.ID, err)
	}
	return nil
}

// consumeFleet feeds a link watcher's inbox from the fleet until ctx ends
// (its runner's life), when conf sets serve.sink; otherwise it returns at
// once. It is the runner's runner.Fleet in hangdog-full (RunHome).
func consumeFleet(ctx context.Context, store *watch.Store, conf *settings.Settings, id string, log io.Writer) {
	w, err := store.Lookup(id)
	if err != nil || w.Spec.Link == nil || conf.ServeSink() == "" {
		return
	}
	if log == nil {
		log = io.Discard
	}
	token := ""
	if w.Spec.Kind == watch.KindApproval {
		if token, err = store.LinkToken(id, w.Spec.Owner); err != nil {
			fmt.Fprintf(log, "the fleet's decisions cannot be stored: %v\n", err)
			return
		}
	}
	// Until the runner ends: a runner started while no server answers
	// takes its deliveries once one does (Consume itself waits out an
	// outage of a connection it has).
	for {
		err = dialFleet(ctx, conf, func(f *sink.Fleet) error {
			fmt.Fprintf(log, "taking this link's deliveries from the fleet (serve.sink)\n")
			return f.Consume(ctx, store, w, token, log)
		})
		if ctx.Err() != nil {
			return
		}
		fmt.Fprintf(log, "the fleet's deliveries are not taken yet (%v); trying again in %v\n", err, fleetRetry)
		t := time.NewTimer(fleetRetry)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// fleetRetry spaces a runner's tries to reach the fleet's servers.
const fleetRetry = 5 * time.Second
