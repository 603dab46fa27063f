package sink

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/hangdog/hangdog/internal/ctxtime"
	"github.com/hangdog/hangdog/watch"
)

// Consumer settings: a message not acknowledged within ackWait is sent
// again; a consumer unused for inactive (its sandbox gone) is removed by
// the servers (a runner that comes back makes it again, and what is left
// on its subject is still there: the stream is a work queue).
const (
	ackWait   = 30 * time.Second
	inactive  = 7 * 24 * time.Hour
	fetchWait = 2 * time.Second
	retryWait = 5 * time.Second
)

// Consume feeds a link watcher's inbox from its subject until ctx ends: a
// durable consumer filtered to the link's subject, each message stored as
// the local receiver stores it — a delivery with
// watch.Store.AcceptDelivery, a decision with watch.Store.Decide (token is
// the link's, for it) — at the time the fleet receiver accepted it, and
// acknowledged only once stored. The watcher's runner then sees it in its
// inbox as it sees a local one: its policy, dedupe and events are the
// same. A message the link can no longer take (paused, deleted, used up)
// is dropped and said in log; one that could not be stored is sent again
// later. A servers' outage is waited out.
func (f *Fleet) Consume(ctx context.Context, store *watch.Store, w *watch.Watcher, token string, log io.Writer) error {
	if w.Spec.Link == nil {
		return fmt.Errorf("watcher %s has no link", w.Spec.ID)
	}
	hash := w.Spec.Link.TokenHash
	cfg := jetstream.ConsumerConfig{
		Durable: durableOf(hash), FilterSubject: SubjectOf(hash),
		AckPolicy: jetstream.AckExplicitPolicy, AckWait: ackWait, InactiveThreshold: inactive,
		Description: "hangdog: the deliveries of watcher " + w.Spec.ID,
	}
	var cons jetstream.Consumer
	for cons == nil {
		c, err := f.js.CreateOrUpdateConsumer(ctx, Stream, cfg)
		if err == nil {
			cons = c
			break
		}
		fmt.Fprintf(log, "the fleet's consumer for this link could not be made (%v); trying again in %v\n", err, retryWait)
		if !ctxtime.Sleep(ctx, retryWait) {
			return ctx.Err()
		}
	}
	for ctx.Err() == nil {
		batch, err := cons.Fetch(50, jetstream.FetchMaxWait(fetchWait))
		if err != nil {
			if ctx.Err() == nil {
				fmt.Fprintf(log, "fetch from the fleet: %v; trying again in %v\n", err, retryWait)
				ctxtime.Sleep(ctx, retryWait)
			}
			continue
		}
		for m := range batch.Messages() {
			f.store(ctx, store, w.Spec.ID, token, m, log)
		}
		if err := batch.Error(); err != nil && !errors.Is(err, jetstream.ErrNoMessages) && ctx.Err() == nil {
			fmt.Fprintf(log, "fetch from the fleet: %v\n", err)
			ctxtime.Sleep(ctx, retryWait)
		}
	}
	return ctx.Err()
}

// store keeps one message in the inbox and acknowledges it.
func (f *Fleet) store(ctx context.Context, store *watch.Store, id, token string, m jetstream.Msg, log io.Writer) {
	var msg message
	if err := json.Unmarshal(m.Data(), &msg); err != nil {
		fmt.Fprintf(log, "dropped a message from the fleet that is not hangdog's: %v\n", err)
		_ = m.Term()
		return
	}
	var err error
	switch msg.Kind {
	case kindDelivery:
		_, err = store.AcceptDelivery(id, watch.Delivery{ID: msg.ID, Event: msg.Event, ContentType: msg.ContentType, Body: msg.Body}, msg.At)
	case kindDecision:
		if msg.Decision == nil {
			err = errors.New("a decision message without its decision")
			break
		}
		_, err = store.Decide(token, msg.Decision.Choice, msg.Decision.Comment, msg.At)
		if errors.Is(err, watch.ErrDecided) {
			err = nil // stored before: the ack was lost
		}
	default:
		err = fmt.Errorf("a message of kind %q", msg.Kind)
	}
	switch {
	case err == nil:
		if aerr := m.DoubleAck(ctx); aerr != nil {
			// Sent again after ackWait, and then a duplicate for the store.
			fmt.Fprintf(log, "acknowledge a %s to the fleet: %v\n", msg.Kind, aerr)
		}
	case errors.Is(err, watch.ErrLinkClosed), errors.Is(err, watch.ErrNotFound), errors.Is(err, watch.ErrBadChoice):
		fmt.Fprintf(log, "dropped a %s the fleet receiver accepted: %v\n", msg.Kind, err)
		_ = m.Term()
	default:
		fmt.Fprintf(log, "could not store a %s from the fleet (%v); it is sent again in %v\n", msg.Kind, err, retryWait)
		_ = m.NakWithDelay(retryWait)
	}
}
