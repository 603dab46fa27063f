package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hangdog/hangdog/bgtasks"
)

// A tool result that carries notifications must be written before the
// session's cursor moves past them: a server that dies in between repeats
// them on its next start (same #ids) instead of losing them. The SDK gives a
// handler no way to see its result written, so the connection is wrapped:
// reading a tools/call tags it with its JSON-RPC id, the handler claims its
// events under that id, and writing the response with that id settles the
// claim.

// deliveryHeader carries the request's id from the connection to the tool
// handler, in the one per-request field the SDK passes through.
const deliveryHeader = "Hangdog-Delivery-Key"

type seqState int

const (
	seqInFlight seqState = iota + 1 // in a result not yet written
	seqWritten                      // written; waits for earlier ones
	seqReturned                     // its result was never written; offer again
)

// deliveries hands each undelivered event to one tool result at a time and
// moves the consumer's durable cursor only over events whose results have
// been written, in order, so concurrent calls cannot skip a gap.
type deliveries struct {
	reg      *bgtasks.Registry
	consumer string
	scope    bgtasks.Scope // the session's own news: the tasks it started

	mu      sync.Mutex
	durable int64              // the cursor as this session last wrote it
	state   map[int64]seqState // events past durable that were handed out
	claims  map[string][]int64 // delivery key → the events its result carries
}

func newDeliveries(reg *bgtasks.Registry, consumer string) *deliveries {
	return &deliveries{reg: reg, consumer: consumer, scope: bgtasks.Scope{Owner: consumer}, state: map[int64]seqState{}, claims: map[string][]int64{}}
}

// register makes the consumer known to the event log, so that events from
// now on are kept for it even before its first tool call. A consumer that
// already has a cursor (a restarted harness with --consumer) keeps it.
func (d *deliveries) register() error {
	_, err := d.reg.Undelivered(d.consumer)
	return err
}

// take returns the events not yet delivered nor in flight, and records them
// as carried by the result with this key.
func (d *deliveries) take(key string) ([]bgtasks.Event, error) {
	evs, err := d.reg.Undelivered(d.consumer)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []bgtasks.Event
	for _, e := range evs {
		if e.Seq <= d.durable {
			continue
		}
		if st := d.state[e.Seq]; st == seqInFlight || st == seqWritten {
			continue
		}
		if !d.scope.SeesEvent(e) {
			// Another session's news: never this session's to tell, and
			// passed over by the cursor with the next written result.
			d.state[e.Seq] = seqWritten
			continue
		}
		d.state[e.Seq] = seqInFlight
		d.claims[key] = append(d.claims[key], e.Seq)
		out = append(out, e)
	}
	return out, nil
}

// written settles the claim of a result that has been written and moves
// the durable cursor over every event before the first one still in flight.
func (d *deliveries) written(key string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	seqs, ok := d.claims[key]
	if !ok {
		return nil
	}
	delete(d.claims, key)
	for _, s := range seqs {
		d.state[s] = seqWritten
	}
	pending := make([]int64, 0, len(d.state))
	for s := range d.state {
		pending = append(pending, s)
	}
	slices.Sort(pending)
	through := d.durable
	for _, s := range pending {
		if d.state[s] != seqWritten {
			break
		}
		through = s
		delete(d.state, s)
	}
	if through == d.durable {
		return nil
	}
	if err := d.reg.MarkDelivered(d.consumer, through); err != nil {
		return err
	}
	d.durable = through
	return nil
}

// release gives back the events of a result that will not be written (its
// call was cancelled, or writing failed); the next result carries them.
func (d *deliveries) release(key string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, s := range d.claims[key] {
		d.state[s] = seqReturned
	}
	delete(d.claims, key)
}

// deliveryKey is the key under which a tool call's events are claimed: its
// JSON-RPC id, as the connection tagged it. Calls that did not come through
// a wrapped connection have none.
func deliveryKey(req *mcp.CallToolRequest) string {
	if req == nil || req.Extra == nil || req.Extra.Header == nil {
		return ""
	}
	return req.Extra.Header.Get(deliveryHeader)
}

func idKey(id jsonrpc.ID) string { return fmt.Sprintf("%T:%v", id.Raw(), id.Raw()) }

// deliveryTransport wraps a transport so that tool calls carry their id to
// the handler and written responses settle their claims.
type deliveryTransport struct {
	inner mcp.Transport
	d     *deliveries
	onErr func(error)
	// onCancel is told the reason a client gave for cancelling a call,
	// before the SDK cancels the call's context.
	onCancel func(key, reason string)
	// onReplied runs after each response is written: work the reply need
	// not wait for.
	onReplied func()
}

func (t *deliveryTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &deliveryConn{Connection: c, d: t.d, onErr: t.onErr, onCancel: t.onCancel, onReplied: t.onReplied}, nil
}

type deliveryConn struct {
	mcp.Connection
	d         *deliveries
	onErr     func(error)
	onCancel  func(key, reason string)
	onReplied func()
}

func (c *deliveryConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err != nil {
		return msg, err
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return msg, nil
	}
	switch {
	case req.IsCall() && req.Method == "tools/call":
		extra := &mcp.RequestExtra{}
		if prev, ok := req.Extra.(*mcp.RequestExtra); ok && prev != nil {
			*extra = *prev
		}
		extra.Header = extra.Header.Clone()
		if extra.Header == nil {
			extra.Header = http.Header{}
		}
		extra.Header.Set(deliveryHeader, idKey(req.ID))
		req.Extra = extra
	case req.Method == "notifications/cancelled":
		// A cancelled call may never get its response written.
		var p struct {
			RequestID any    `json:"requestId"`
			Reason    string `json:"reason"`
		}
		if json.Unmarshal(req.Params, &p) == nil {
			if id, err := jsonrpc.MakeID(p.RequestID); err == nil {
				c.d.release(idKey(id))
				if c.onCancel != nil {
					c.onCancel(idKey(id), p.Reason)
				}
			}
		}
	}
	return msg, nil
}

func (c *deliveryConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.Connection.Write(ctx, msg)
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		return err
	}
	key := idKey(resp.ID)
	if err != nil {
		c.d.release(key)
		return err
	}
	if werr := c.d.written(key); werr != nil && c.onErr != nil {
		c.onErr(werr)
	}
	if c.onReplied != nil {
		c.onReplied()
	}
	return nil
}
