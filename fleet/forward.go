package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/fleet/autostart"
	"github.com/hangdog/hangdog/internal/ctxtime"
)

// Forwarder timing. Stated once; the forwarder's doc and docs/fleet.md
// name them.
const (
	// forwardPoll is how often an idle forwarder looks at the log (a stat).
	forwardPoll = 200 * time.Millisecond
	// markEvery: the cursor is written after this many acknowledged
	// publishes (and whenever the forwarder catches up), not after each:
	// a kill -9 repeats at most these, and the stream drops the repeats.
	markEvery = 64
	// publishTimeout bounds one publish's wait for the stream's ack.
	publishTimeout = 10 * time.Second
	// maxBackoff is the longest wait between tries while NATS is out.
	maxBackoff = 5 * time.Second
	// wantedEvery is how often a forwarder asks whether it is still
	// wanted (the settings still name its sink).
	wantedEvery = time.Minute
)

// Forwarder publishes every event of a home's log to the stream, in
// order, from its own cursor (autostart.Consumer), which moves only past
// events the stream acknowledged. It publishes one event at a time: a
// retry after a failed publish then never lands behind a later event, so
// the stream holds each home's events in the log's order. A NATS outage
// is waited out (the log is the source of truth); a restart or a kill -9
// republishes at most markEvery events, which the stream drops by their
// message ids.
type Forwarder struct {
	Reg    *bgtasks.Registry
	Config Config
	Log    io.Writer
	// Wanted, if set, is asked every minute whether to go on; false ends
	// Run (the sink was removed or changed: the next task start brings a
	// forwarder for the new one).
	Wanted func() bool

	homeID, host string
	conn         *Conn
	failing      string // the error publishing last failed with, "" when it works
}

func (f *Forwarder) logf(format string, args ...any) {
	if f.Log != nil {
		fmt.Fprintf(f.Log, time.Now().UTC().Format(time.RFC3339)+" forward: "+format+"\n", args...)
	}
}

// Run forwards until ctx ends or the forwarder is no longer wanted,
// holding the home's forwarder lock throughout (autostart.ErrHeld if
// another forwarder has it).
func (f *Forwarder) Run(ctx context.Context) error {
	home := f.Reg.Home()
	release, err := autostart.Claim(home)
	if err != nil {
		return err
	}
	defer release()
	if f.homeID, err = HomeID(home); err != nil {
		return err
	}
	f.host = f.Config.HostName()
	if f.Config.Name == "" {
		f.Config.Name = "hangdog forward " + f.host
	}
	if err := f.connect(ctx); err != nil {
		return err
	}
	defer f.conn.Close()
	acked, err := f.Reg.Cursor(autostart.Consumer)
	if err != nil {
		return err
	}
	f.logf("publishing the events of %s after seq %d to %s as host %q", home, acked, Redact(f.Config.URLs), f.host)
	marked := acked
	mark := func() error {
		if acked == marked {
			return nil
		}
		if err := f.Reg.MarkDelivered(autostart.Consumer, acked); err != nil {
			return err
		}
		marked = acked
		return nil
	}
	defer func() { _ = mark() }()
	lastWanted := time.Now()
	for {
		if f.Wanted != nil && time.Since(lastWanted) >= wantedEvery {
			lastWanted = time.Now()
			if !f.Wanted() {
				f.logf("events.sink no longer names %s; stopping", Redact(f.Config.URLs))
				return nil
			}
		}
		// The log's last seq is read from its end: an idle look is cheap.
		last, err := f.Reg.LastEventSeq()
		if err != nil {
			return err
		}
		if last > acked {
			n := 0
			err := f.Reg.ScanEvents(acked, func(e bgtasks.Event) error {
				if err := f.publish(ctx, e); err != nil {
					return err
				}
				acked = e.Seq
				if n++; n%markEvery == 0 {
					return mark()
				}
				return nil
			})
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				return err
			}
			if err := mark(); err != nil {
				return err
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(forwardPoll):
		}
	}
}

// connect connects and makes sure of the stream, trying again (with a
// growing wait) until it works or ctx ends.
func (f *Forwarder) connect(ctx context.Context) error {
	wait := 100 * time.Millisecond
	for {
		c, err := Connect(f.Config)
		if err == nil {
			cctx, cancel := context.WithTimeout(ctx, publishTimeout)
			_, err = c.EnsureStream(cctx)
			cancel()
			if err == nil {
				f.conn = c
				f.working()
				return nil
			}
			c.Close()
		}
		f.failed(err)
		if !ctxtime.Sleep(ctx, wait) {
			return ctx.Err()
		}
		wait = min(2*wait, maxBackoff)
	}
}

// publish publishes one event until the stream acknowledges it (or
// reports it a duplicate, which is the same: it holds it) or ctx ends.
func (f *Forwarder) publish(ctx context.Context, e bgtasks.Event) error {
	body, err := json.Marshal(Message{Host: f.host, HomeID: f.homeID, Event: e})
	if err != nil {
		return fmt.Errorf("encode event %d: %w", e.Seq, err)
	}
	subject, id := Subject(f.host, e), MsgID(f.homeID, e)
	wait := 100 * time.Millisecond
	for {
		pctx, cancel := context.WithTimeout(ctx, publishTimeout)
		_, err := f.conn.JS.Publish(pctx, subject, body, jetstream.WithMsgID(id))
		cancel()
		if err == nil {
			f.working()
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		f.failed(err)
		if errors.Is(err, jetstream.ErrNoStreamResponse) {
			// The stream is gone (deleted by hand?): make it again.
			cctx, cancel := context.WithTimeout(ctx, publishTimeout)
			_, _ = f.conn.EnsureStream(cctx)
			cancel()
		}
		if !ctxtime.Sleep(ctx, wait) {
			return ctx.Err()
		}
		wait = min(2*wait, maxBackoff)
	}
}

// failed logs a failure once, not once per try.
func (f *Forwarder) failed(err error) {
	if msg := err.Error(); msg != f.failing {
		f.failing = msg
		f.logf("cannot publish to %s: %v; trying again, the events wait in the log", Redact(f.Config.URLs), err)
	}
}

func (f *Forwarder) working() {
	if f.failing != "" {
		f.failing = ""
		f.logf("publishing again")
	}
}
