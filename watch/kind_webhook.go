package watch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/hangdog/hangdog/bgtasks"
)

// webhookSource is a trigger link's inbox. Nothing is polled: the receiver
// stores each accepted delivery there and inotify says so (Changes).
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

// Changes fires when a delivery lands (a rename into the inbox; the temp
// file before it is a dot file).
func (w *webhookSource) Changes(ctx context.Context) (<-chan struct{}, error) {
	ch, err := watchDir(ctx, w.dir, func(ev fsnotify.Event) bool {
		return !strings.HasPrefix(filepath.Base(ev.Name), ".") && ev.Has(fsnotify.Create)
	})
	if err != nil {
		return nil, fmt.Errorf("inotify for the inbox: %w", err)
	}
	return ch, nil
}

// hookKey is the dedupe key of the event a delivery makes.
func hookKey(id, key string) string { return id + ":hook:" + key }

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
	src := &webhookSource{dir: r.Store.Inbox(r.ID)}
	obs, oerr := src.Observe(ctx, nil)
	err = r.Store.update(r.ID, func(sp *Spec, st *State) error {
		if st.Paused {
			stop = true
			return errSkipWrite
		}
		now := r.now()
		st.Checks++
		st.LastCheck = &now
		if oerr != nil {
			st.LastError = oerr.Error()
			r.logf("check %d failed: %v", st.Checks, oerr)
			return nil
		}
		st.LastError = ""
		for _, d := range obs.deliveries {
			if slices.Contains(st.Keys, d.Key) {
				continue // handled before a restart; only its file is left
			}
			r.applyDelivery(sp, st, d, now)
			st.Keys = append(st.Keys, d.Key)
		}
		if len(st.Keys) > maxKeys {
			st.Keys = st.Keys[len(st.Keys)-maxKeys:]
		}
		if len(obs.deliveries) == maxDrain {
			return nil // more to drain before the limits apply
		}
		h, err := r.Store.readHook(r.ID)
		if err != nil {
			return err
		}
		switch {
		case sp.ExpiresAt != nil && !now.Before(*sp.ExpiresAt):
			reason := fmt.Sprintf("expired at %s after %d of %d deliveries", sp.ExpiresAt.Format(time.RFC3339), h.Hits, sp.Link.MaxHits)
			if h.Hits == 0 {
				reason = fmt.Sprintf("expired at %s without a delivery", sp.ExpiresAt.Format(time.RFC3339))
			}
			r.pauseWith(sp, st, bgtasks.EventWatchExpired, reason, now)
			st.Expired = true
			stop = true
		case h.Hits >= sp.Link.MaxHits:
			r.pauseWith(sp, st, bgtasks.EventWatchPaused, fmt.Sprintf("received all %d deliveries (max_hits); the link is closed", sp.Link.MaxHits), now)
			stop = true
		}
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

// applyDelivery runs the check on one delivery's body and queues its
// event if it fits. Each delivery is judged on its own, not against the
// one before: a second failed build is news too, so checks are not
// edge-triggered here. One that lacks what the check reads (the path, a
// number) says so once; later misfits are only logged.
func (r *Runner) applyDelivery(sp *Spec, st *State, d inboxDelivery, now time.Time) {
	text, decoded := normalise(d.Item.Body, "json")
	if d.Item.Body == nil {
		text, decoded = normalise([]byte(d.Item.Text), d.Item.ContentType)
	}
	label := fmt.Sprintf("delivery %d", d.Item.Seq)
	if d.Item.Event != "" {
		label += " (" + d.Item.Event + ")"
	}
	v, err := evaluate(sp, &Observation{Text: text, JSON: decoded}, nil)
	if err != nil {
		why := fmt.Sprintf("%s lacks what the check reads (%v)", label, err)
		if st.MisfitTold {
			r.logf("check %d: %s; told once already, not reported", st.Checks, why)
			return
		}
		st.MisfitTold = true
		r.queueDelivery(sp, st, d, why+"; later deliveries that lack it are not reported", text, now)
		return
	}
	if !v.holds {
		r.logf("check %d: %s does not fit (%s %s: %s)", st.Checks, label, sp.Check, sp.Value, v.value)
		return
	}
	summary := label
	switch sp.Check {
	case CheckChanged:
	default:
		summary += fmt.Sprintf(": %s %s (%s)", sp.Check, sp.Value, v.value)
	}
	r.queueDelivery(sp, st, d, summary, text, now)
}

// queueDelivery reserves a delivery's event: counted and queued with the
// delivery's own dedupe key in the state write that records its key.
func (r *Runner) queueDelivery(sp *Spec, st *State, d inboxDelivery, summary, payload string, now time.Time) {
	st.FiresUsed++
	st.LastFire = &now
	ev := r.event(sp, bgtasks.EventWatchFired, summary)
	ev.Payload = untrusted(clip(payload, maxPayload))
	ev.DedupeKey = hookKey(sp.ID, d.Key)
	st.Pending = append(st.Pending, ev)
	r.logf("check %d: fired: %s", st.Checks, summary)
}
