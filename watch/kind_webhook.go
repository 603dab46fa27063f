package watch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
)

// webhookSource is a trigger link's inbox. Nothing is polled: the receiver
// stores each accepted delivery there and inotify says so (notifyDir).
type webhookSource struct{ dir string }

// Observe drains the inbox, oldest first: each delivery is one item keyed
// by its file name, its body the content the watcher's check reads.
func (w *webhookSource) Observe(context.Context, *State) (*Observation, error) {
	ds, err := listInbox(w.dir)
	if err != nil {
		return nil, err
	}
	return &Observation{deliveries: ds}, nil
}

// tickWebhook is Tick for a trigger link. Every delivery the receiver
// accepted is handled, also after the link expired or was used up (a 202
// is a promise); then the limits are checked. A delivery leaves the inbox
// only once its event is in the log, or it is known not to fit: its key is
// kept in the state with the event queued, so a crash anywhere repeats
// nothing (deliverPending finds a queued event's key in the log, and a
// key in the state is not handled twice).
func (r *Runner) tickWebhook(ctx context.Context) (stop bool, err error) {
	if err := r.deliverPending(); err != nil {
		return false, err
	}
	// The hits are read before the inbox is listed. The receiver stores a
	// delivery before it counts it, so every delivery counted by then is in
	// the listing or was handled before it. Read after the listing, a
	// delivery stored and counted in between would count toward max_hits
	// without being handled, and the pause that brings would strand its 202.
	h, herr := r.Store.readHook(r.ID)
	src := &webhookSource{dir: r.Store.Inbox(r.ID)}
	obs, oerr := src.Observe(ctx, nil)
	err = r.Store.update(r.ID, func(sp *Spec, st *State) error {
		if st.Paused {
			stop = true
			return errSkipWrite
		}
		var ds []inboxDelivery
		hits := 0
		r.more = oerr == nil && len(obs.deliveries) == maxDrain
		if oerr == nil {
			ds = obs.deliveries
			if len(ds) < maxDrain { // the limits apply once the inbox is drained
				if herr != nil {
					return herr
				}
				hits = h.Hits
			}
		}
		next, out := stepDeliveries(sp, *st, ds, oerr, hits, r.now())
		r.logOutcome(out)
		*st, stop = next, out.Stop
		return nil
	})
	if errors.Is(err, errSkipWrite) {
		err = nil
	}
	if errors.Is(err, ErrNotFound) {
		return true, nil
	}
	err = errors.Join(err, r.deliverPending())
	if oerr == nil {
		err = errors.Join(err, r.settleInbox(obs.deliveries))
	}
	return stop, err
}

// settleInbox removes the deliveries whose events are in the log (their
// keys are in the state and nothing is queued).
func (r *Runner) settleInbox(ds []inboxDelivery) error {
	if len(ds) == 0 {
		return nil
	}
	err := r.Store.read(r.ID, func(_ *Spec, st *State) error {
		if len(st.Pending) > 0 {
			return nil // not delivered yet: the next tick settles them
		}
		for _, d := range ds {
			if !slices.Contains(st.Keys, d.Key) {
				continue
			}
			if err := os.Remove(d.path); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("remove a handled delivery: %w", err)
			}
		}
		return nil
	})
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	return err
}

// tellAccepted, at a trigger link's removal and under its lock, tells
// every delivery still in its inbox (the deliveries its runner has not
// handled yet) and the events still queued, as the runner would have:
// each delivery that fits the check is one event, with the dedupe key the
// runner gives it, so a delivery the runner told already (its key in the
// log) is not told again. The link's limits do not apply: it is going.
func (s *Store) tellAccepted(sp *Spec, st *State, now time.Time) error {
	ds, err := readInbox(s.Inbox(sp.ID), 0)
	if err != nil {
		return err
	}
	step := begin(sp, *st, now)
	for _, d := range ds {
		if slices.Contains(step.st.Keys, d.Key) {
			continue
		}
		step.applyDelivery(d)
		step.st.Keys = append(step.st.Keys, d.Key)
	}
	next, _ := step.end(false)
	if len(next.Pending) == 0 {
		return nil
	}
	inLog := map[string]bool{}
	err = s.reg.ScanEvents(0, func(e bgtasks.Event) error {
		if e.WatcherID == sp.ID {
			inLog[e.DedupeKey] = true
		}
		return nil
	})
	if err != nil {
		return err
	}
	send, _ := ToDeliver(next.Pending, inLog)
	for _, ev := range send {
		if _, err := s.reg.AppendEvent(ev); err != nil {
			return err
		}
	}
	return nil
}
