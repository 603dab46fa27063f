// Package fleetsource is the wake worker's Source over the fleet's stream
// (`hangdog wake --from`): a JetStream durable consumer, filtered by host,
// project, session or kind, whose ack floor is the worker's cursor. It
// acks (AckAll, confirmed by the server) only when the worker says a batch
// is handled; everything after the floor is handed over again after a
// restart, in the stream's order.
package fleetsource

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/fleet"
	"github.com/hangdog/hangdog/wake"
)

// Limits, stated once.
const (
	// maxBatch is the most events fetched at once (one batch at most).
	maxBatch = 1000
	// ackWait is long: the worker holds what it fetched until a run
	// succeeds, and a redelivery meanwhile would only be dropped (an agent's
	// turn may take many minutes). After a restart the consumer is reset to
	// its ack floor instead of waiting for redeliveries.
	ackWait = time.Hour
	// requestTimeout bounds one request to the cluster.
	requestTimeout = 10 * time.Second
	// UndecodableKind is the kind of an event whose message on the stream
	// is not a hangdog event (something else published on its subjects).
	UndecodableKind = "fleet.undecodable"
)

// Filter chooses the events a consumer is handed: "" matches any.
type Filter struct{ Host, Project, Session, Kind string }

// Source is a durable consumer of the fleet's stream.
type Source struct {
	stream jetstream.Stream
	cons   jetstream.Consumer
	// held are the messages fetched and not yet acknowledged, in stream
	// order; floor is the stream seq up to which every event is handled;
	// maxSeen the highest stream seq held or handled.
	held    []jetstream.Msg
	floor   uint64
	maxSeen uint64
	// Log is told, once per change, when the cluster cannot be reached
	// (the worker waits it out); nil says nothing.
	Log     func(msg string)
	failing string
}

var _ wake.Source = (*Source)(nil)

// Open makes (or updates) the durable consumer name on the stream
// (created when missing) and resets it to its ack floor, so that
// everything not acknowledged is delivered again in order. A consumer
// made now starts at the stream's end, as a new local consumer starts at
// the log's.
func Open(ctx context.Context, conn *fleet.Conn, name string, f Filter) (*Source, error) {
	rctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	stream, err := conn.EnsureStream(rctx)
	if err != nil {
		return nil, err
	}
	cons, err := stream.CreateOrUpdateConsumer(rctx, jetstream.ConsumerConfig{
		Durable:       name,
		Description:   "hangdog wake --from",
		DeliverPolicy: jetstream.DeliverNewPolicy,
		AckPolicy:     jetstream.AckAllPolicy,
		AckWait:       ackWait,
		MaxAckPending: 10 * maxBatch,
		FilterSubject: fleet.Filter(f.Host, f.Project, f.Session, f.Kind),
	})
	if err != nil {
		return nil, fmt.Errorf("durable consumer %s on stream %s: %w", name, conn.Config().Stream, err)
	}
	if _, err := stream.ResetConsumer(rctx, name); err != nil {
		return nil, fmt.Errorf("reset consumer %s to its ack floor: %w", name, err)
	}
	info, err := cons.Info(rctx)
	if err != nil {
		return nil, fmt.Errorf("consumer %s: %w", name, err)
	}
	floor := info.AckFloor.Stream
	return &Source{stream: stream, cons: cons, floor: floor, maxSeen: floor}, nil
}

// Pending fetches what is there (without waiting) and returns every event
// held, oldest first; the ids are stream seqs.
func (s *Source) Pending(ctx context.Context) ([]wake.Item, error) {
	batch, err := s.cons.FetchNoWait(maxBatch)
	if err != nil {
		// Waited out: the worker looks again after its poll.
		s.failed(err)
		return s.items(), nil
	}
	var handled jetstream.Msg // the newest delivery of an event already handled
	for msg := range batch.Messages() {
		md, err := msg.Metadata()
		if err != nil {
			continue
		}
		seq := md.Sequence.Stream
		switch {
		case seq <= s.floor:
			handled = msg
		case seq <= s.maxSeen:
			// A redelivery of one held: keep the first.
		default:
			s.held = append(s.held, msg)
			s.maxSeen = seq
		}
	}
	if err := batch.Error(); err != nil && !errors.Is(err, jetstream.ErrNoMessages) && ctx.Err() == nil {
		s.failed(err)
	} else {
		s.working()
	}
	if handled != nil {
		// Handled before a restart: acknowledged now that it came back.
		if err := s.ack(ctx, handled); err != nil {
			return nil, err
		}
	}
	return s.items(), nil
}

// items are the events held, oldest first.
func (s *Source) items() []wake.Item {
	items := make([]wake.Item, 0, len(s.held))
	for _, msg := range s.held {
		md, _ := msg.Metadata()
		items = append(items, wake.Item{ID: int64(md.Sequence.Stream), Event: decode(msg.Data())})
	}
	return items
}

func (s *Source) failed(err error) {
	if msg := err.Error(); msg != s.failing {
		s.failing = msg
		if s.Log != nil {
			s.Log("cannot reach the fleet stream: " + msg + "; trying again")
		}
	}
}

func (s *Source) working() {
	if s.failing != "" {
		s.failing = ""
		if s.Log != nil {
			s.Log("reached the fleet stream again")
		}
	}
}

// Handled acknowledges every event up to id (a stream seq), confirmed by
// the server, and drops them from what is held.
func (s *Source) Handled(ctx context.Context, id int64) error {
	upTo := uint64(id)
	s.floor = max(s.floor, upTo)
	s.maxSeen = max(s.maxSeen, upTo)
	n := 0
	var last jetstream.Msg
	for _, msg := range s.held {
		md, _ := msg.Metadata()
		if md.Sequence.Stream > upTo {
			break
		}
		last, n = msg, n+1
	}
	if last != nil {
		// AckAll: one ack covers every event before it.
		if err := s.ack(ctx, last); err != nil {
			return err
		}
	}
	s.held = s.held[n:]
	// Not held (handled before a restart): acknowledged when it is
	// delivered again (Pending).
	return nil
}

// Find reads a recorded batch's events from the stream by their seqs.
func (s *Source) Find(ctx context.Context, ids []int64) ([]bgtasks.Event, error) {
	var evs []bgtasks.Event
	for _, id := range ids {
		rctx, cancel := context.WithTimeout(ctx, requestTimeout)
		m, err := s.stream.GetMsg(rctx, uint64(id))
		cancel()
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			continue // gone from the stream (its limits)
		}
		if err != nil {
			return nil, fmt.Errorf("read event %d from the fleet stream: %w", id, err)
		}
		evs = append(evs, decode(m.Data))
	}
	return evs, nil
}

// ack acknowledges msg and every event before it, trying until the server
// confirms or ctx ends: the worker forgets its record of the batch only
// after this, so a batch is never handed over again once handled.
func (s *Source) ack(ctx context.Context, msg jetstream.Msg) error {
	wait := 100 * time.Millisecond
	for {
		rctx, cancel := context.WithTimeout(ctx, requestTimeout)
		err := msg.DoubleAck(rctx)
		cancel()
		if err == nil {
			s.working()
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("acknowledge to the fleet stream: %w", err)
		}
		s.failed(err)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("acknowledge to the fleet stream: %w", ctx.Err())
		case <-t.C:
		}
		wait = min(2*wait, 5*time.Second)
	}
}

// decode turns a message into the event it carries, with the host and
// home it comes from.
func decode(data []byte) bgtasks.Event {
	var m fleet.Message
	if err := json.Unmarshal(data, &m); err != nil {
		return bgtasks.Event{Kind: UndecodableKind, Reason: "a message on the fleet's subjects that is not a hangdog event"}
	}
	e := m.Event
	e.Host, e.HomeID = m.Host, m.HomeID
	return e
}
