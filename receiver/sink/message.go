package sink

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/hangdog/hangdog/watch"
)

// message is what the stream carries for a link: a trigger link's
// delivery (what watch.Store.AcceptDelivery takes) or an approval's
// decision, and when the receiver accepted it, so a link that expires in
// between still keeps the receiver's promise.
type message struct {
	Kind        string          `json:"kind"` // kindDelivery or kindDecision
	At          time.Time       `json:"at"`
	ID          string          `json:"id,omitempty"`
	Event       string          `json:"event,omitempty"`
	ContentType string          `json:"content_type,omitempty"`
	Body        []byte          `json:"body,omitempty"`
	Decision    *watch.Decision `json:"decision,omitempty"`
}

const (
	kindDelivery = "delivery"
	kindDecision = "decision"
)

// publish stores m on the link's subject under id and returns once the
// stream acknowledged it; duplicate says the stream had that id already.
func (f *Fleet) publish(ctx context.Context, hash, id string, m *message) (duplicate bool, err error) {
	b, err := json.Marshal(m)
	if err != nil {
		return false, fmt.Errorf("encode the %s: %w", m.Kind, err)
	}
	ack, err := f.js.PublishMsg(ctx, &nats.Msg{Subject: SubjectOf(hash), Data: b}, jetstream.WithMsgID(id))
	if err != nil {
		return false, fmt.Errorf("publish the %s to %s: %w", m.Kind, Stream, err)
	}
	return ack.Duplicate, nil
}
