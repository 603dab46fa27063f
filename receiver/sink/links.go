package sink

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/hangdog/hangdog/receiver"
	"github.com/hangdog/hangdog/watch"
)

// Links are the fleet's trigger links, for the fleet receiver: found in
// the bucket by their token's hash, their hits, rate windows and dedupe
// record kept there (shared by every receiver), each accepted delivery
// published to the link's subject.
type Links struct{ f *Fleet }

// Links is the fleet receiver's receiver.Links.
func (f *Fleet) Links() *Links { return &Links{f: f} }

var _ receiver.Links = (*Links)(nil)

// unavailable marks an error of the servers as no answer about the link.
func unavailable(err error) error {
	if err == nil || errors.Is(err, watch.ErrNotFound) || errors.Is(err, watch.ErrLinkClosed) {
		return err
	}
	return fmt.Errorf("%w: %w", receiver.ErrUnavailable, err)
}

// Open finds the link's record; a link that is not a trigger link, has
// expired or has taken its max_hits is closed.
func (l *Links) Open(token string, now time.Time) (receiver.Link, error) {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	hash := TokenHash(token)
	r, err := l.f.record(ctx, hash)
	if err != nil {
		return receiver.Link{}, unavailable(err)
	}
	if r.Kind != watch.KindWebhook {
		return receiver.Link{}, watch.ErrLinkClosed
	}
	if !now.Before(r.ExpiresAt) {
		// It can never be called again: its keys go (an expired link's
		// sandbox pauses it by itself, so nobody withdraws it).
		_ = l.f.forget(ctx, hash)
		return receiver.Link{}, watch.ErrLinkClosed
	}
	hits, _, err := l.f.counter(ctx, hitsKey(hash))
	if err != nil {
		return receiver.Link{}, unavailable(err)
	}
	if hits >= r.MaxHits {
		return receiver.Link{}, watch.ErrLinkClosed
	}
	return receiver.Link{ID: r.Sandbox + "/" + r.Watcher, Key: hash, Ref: r, Signature: r.Signature, RatePerMin: r.RatePerMin}, nil
}

// Secret is the record's.
func (l *Links) Secret(lk receiver.Link) (string, error) {
	r, ok := lk.Ref.(*Record)
	if !ok || r.Secret == "" {
		return "", errors.New("the link's record in the fleet has no secret")
	}
	return r.Secret, nil
}

// Take spends from the window kept in the bucket, written back only if no
// other receiver wrote it meanwhile (else read again).
func (l *Links) Take(lk receiver.Link, kind string, perMin int, now time.Time) (time.Duration, bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	key := windowKey(lk.Key, kind)
	for {
		var b receiver.Bucket
		var rev uint64
		e, err := l.f.kv.Get(ctx, key)
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound):
		case err != nil:
			return 0, false, unavailable(err)
		default:
			rev = e.Revision()
			if err := json.Unmarshal(e.Value(), &b); err != nil {
				b = receiver.Bucket{} // a damaged window starts full again
			}
		}
		wait, ok := b.Take(perMin, now)
		if !ok {
			return wait, false, nil
		}
		v, err := json.Marshal(b)
		if err != nil {
			return 0, false, err
		}
		if err := l.f.cas(ctx, key, v, rev); !errors.Is(err, errConflict) {
			return 0, err == nil, unavailable(err)
		}
	}
}

// Accept passes a delivery on to its sandbox: a delivery the bucket's
// record has seen within watch.DedupeKey's window is a repeat; otherwise
// a hit is reserved (none left: the link is closed), the delivery
// published under its message id, and the hit given back if the stream
// had it already (a concurrent or earlier retry).
// Only then is it recorded as seen: a crash before that makes the
// sender's retry a duplicate at the stream (within its window) or at the
// sandbox (watch.Store.AcceptDelivery), never a second event.
func (l *Links) Accept(lk receiver.Link, d watch.Delivery, now time.Time) (bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	hash := lk.Key
	r, _ := lk.Ref.(*Record)
	if r == nil {
		return false, errors.New("a fleet link without its record")
	}
	dk, window := watch.DedupeKey(d.ID)
	seen := seenKeyOf(hash, dk)
	if e, err := l.f.kv.Get(ctx, seen); err == nil {
		var at time.Time
		if at.UnmarshalText(e.Value()) == nil && now.Sub(at) < window {
			return true, nil
		}
	} else if !errors.Is(err, jetstream.ErrKeyNotFound) {
		return false, unavailable(err)
	}
	if err := l.f.addHit(ctx, hash, r.MaxHits, +1); err != nil {
		return false, unavailable(err)
	}
	dup, err := l.f.publish(ctx, hash, msgID(hash, dk), &message{Kind: kindDelivery, At: now,
		ID: d.ID, Event: d.Event, ContentType: d.ContentType, Body: d.Body})
	if err != nil {
		// Its hit is kept: the stream may have stored it (an answer lost
		// on the way), and then the retry is a duplicate that gives back
		// only its own. A hit too many closes the link one early; one too
		// few would take a delivery the sandbox then refuses.
		return false, unavailable(err)
	}
	if dup {
		return true, unavailable(l.f.addHit(ctx, hash, r.MaxHits, -1))
	}
	// Not kept is no loss: a retry is then a duplicate at the stream or
	// at the sandbox.
	stamp, _ := now.UTC().MarshalText()
	_, _ = l.f.kv.Put(ctx, seen, stamp)
	return false, nil
}

// addHit counts one hit more (+1, refused with watch.ErrLinkClosed at
// max) or gives one back (-1).
func (f *Fleet) addHit(ctx context.Context, hash string, max, delta int) error {
	for {
		n, rev, err := f.counter(ctx, hitsKey(hash))
		if err != nil {
			return err
		}
		if delta > 0 && n >= max {
			return watch.ErrLinkClosed
		}
		if delta < 0 && n == 0 {
			return nil
		}
		if err := f.setCounter(ctx, hitsKey(hash), n+delta, rev); !errors.Is(err, errConflict) {
			return err
		}
	}
}
