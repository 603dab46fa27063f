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
	// A result written and then cancelled by its client was never read
	// (the cancel crossed it on the wire): its events are offered again.
	// carried holds each result's events until it is written or released,
	// sent the newest written results' (sentKept of them), again the
	// events to offer again and againClaims the results that carry them.
	carried     map[string][]bgtasks.Event
	sent        map[string][]bgtasks.Event
	sentKeys    []string
	again       []bgtasks.Event
	againClaims map[string][]bgtasks.Event
}

// sentKept bounds the written results whose events a late cancel can
// still give back: a cancel crosses a result within moments.
const sentKept = 64

func newDeliveries(reg *bgtasks.Registry, consumer string) *deliveries {
	return &deliveries{reg: reg, consumer: consumer, scope: bgtasks.Scope{Owner: consumer}, state: map[int64]seqState{}, claims: map[string][]int64{},
		carried: map[string][]bgtasks.Event{}, sent: map[string][]bgtasks.Event{}, againClaims: map[string][]bgtasks.Event{}}
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
	// Events given back by a late cancel come first: they are the oldest.
	out := d.again
	d.again = nil
	if len(out) > 0 {
		d.againClaims[key] = append(d.againClaims[key], out...)
	}
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
	if len(out) > 0 {
		d.carried[key] = append(d.carried[key], out...)
	}
	return out, nil
}

// written settles the claim of a result that has been written and moves
// the durable cursor over every event before the first one still in flight.
func (d *deliveries) written(key string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if evs, ok := d.carried[key]; ok {
		delete(d.carried, key)
		delete(d.againClaims, key)
		d.keepSent(key, evs)
	}
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
	delete(d.carried, key)
	d.again = append(d.againClaims[key], d.again...)
	delete(d.againClaims, key)
}

// keepSent remembers the events of the written result key, for a late
// cancel; the caller holds mu.
func (d *deliveries) keepSent(key string, evs []bgtasks.Event) {
	if _, ok := d.sent[key]; !ok {
		d.sentKeys = append(d.sentKeys, key)
		if len(d.sentKeys) > sentKept {
			delete(d.sent, d.sentKeys[0])
			d.sentKeys = d.sentKeys[1:]
		}
	}
	d.sent[key] = evs
}

// unread gives back the events of a result that was written but whose
// call its client cancelled before reading it: the next result carries them
// again. The durable cursor has moved past them already and is not moved
// back: only a crash of this server before the next result loses them.
func (d *deliveries) unread(key string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	evs, ok := d.sent[key]
	if !ok {
		return
	}
	delete(d.sent, key)
	d.again = append(d.again, evs...)
}

// callKey is the delivery key of the tool call ctx belongs to ("" outside
// one).
func callKey(ctx context.Context) string { return deliveryKey(callRequest(ctx)) }

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
	// onUnread is told of a call cancelled after its response was written:
	// its client never reads that response.
	onUnread func(key string)
}

func (t *deliveryTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &deliveryConn{Connection: c, d: t.d, onErr: t.onErr, onCancel: t.onCancel, onReplied: t.onReplied, onUnread: t.onUnread,
		replies: map[string]replyState{}}, nil
}

type deliveryConn struct {
	mcp.Connection
	d         *deliveries
	onErr     func(error)
	onCancel  func(key, reason string)
	onReplied func()
	onUnread  func(key string)

	mu        sync.Mutex
	replies   map[string]replyState // the newest responses (sentKept)
	replyKeys []string
}

// replyState is where a call's response is: a cancel that comes while it
// is written, or after, crossed it on the wire.
type replyState int

const (
	replyWriting replyState = iota + 1
	replyCrossed            // cancelled while being written
	replyWritten
)

// reply moves call key's response to st and says where it was.
func (c *deliveryConn) reply(key string, st replyState) replyState {
	c.mu.Lock()
	defer c.mu.Unlock()
	was, ok := c.replies[key]
	if !ok {
		c.replyKeys = append(c.replyKeys, key)
		if len(c.replyKeys) > sentKept {
			delete(c.replies, c.replyKeys[0])
			c.replyKeys = c.replyKeys[1:]
		}
	}
	c.replies[key] = st
	return was
}

// cancelled notes a client's cancel of call key and says whether it
// crossed the response (being written, or written), and whether the
// response is written already, so that it is for the cancel to make what
// it carried unread (while it is being written, Write does).
func (c *deliveryConn) cancelled(key string) (crossed, written bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch c.replies[key] {
	case replyWriting:
		c.replies[key] = replyCrossed
		return true, false
	case replyCrossed:
		return true, false
	case replyWritten:
		return true, true
	}
	return false, false
}

// unread tells what the written response of call key carried as not told.
func (c *deliveryConn) unread(key string) {
	c.d.unread(key)
	if c.onUnread != nil {
		c.onUnread(key)
	}
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
				key := idKey(id)
				if crossed, written := c.cancelled(key); crossed {
					// The client drops the response unread, so what it
					// told must be told again.
					if written {
						c.unread(key)
					}
					break
				}
				c.d.release(key)
				if c.onCancel != nil {
					c.onCancel(key, p.Reason)
				}
			}
		}
	}
	return msg, nil
}

func (c *deliveryConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		return c.Connection.Write(ctx, msg)
	}
	key := idKey(resp.ID)
	c.reply(key, replyWriting)
	if err := c.Connection.Write(ctx, msg); err != nil {
		c.reply(key, replyWritten)
		c.d.release(key)
		return err
	}
	if werr := c.d.written(key); werr != nil && c.onErr != nil {
		c.onErr(werr)
	}
	if c.reply(key, replyWritten) == replyCrossed {
		c.unread(key)
	}
	if c.onReplied != nil {
		c.onReplied()
	}
	return nil
}
