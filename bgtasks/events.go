package bgtasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"
	"unicode/utf8"
)

// maxEventTail bounds Event.Tail so one event line stays small; the end of
// the output is kept, since that is what tells how a command ended.
const maxEventTail = 8 << 10

// followPollInterval is how often FollowEvents looks for new events. A stat
// of one file per tick is all an idle follower costs.
const followPollInterval = 200 * time.Millisecond

// AppendEvent adds e to events.jsonl as one line, under the registry lock,
// with Seq set to the last seq + 1 and Time set to now if zero. It returns
// the event as written.
func (r *Registry) AppendEvent(e Event) (Event, error) {
	var out Event
	err := r.withLock(func() error {
		var err error
		out, err = r.appendEventLocked(e)
		return err
	})
	return out, err
}

func (r *Registry) appendEventLocked(e Event) (Event, error) {
	path := r.eventsPath()
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return Event{}, fmt.Errorf("append event: %w", err)
	}
	defer f.Close()
	last, err := lastEventSeq(f)
	if err != nil {
		return Event{}, fmt.Errorf("append event: %w", err)
	}
	e.Seq = last + 1
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	e.Tail = capTail(e.Tail)
	line, err := json.Marshal(e)
	if err != nil {
		return Event{}, fmt.Errorf("append event: encode: %w", err)
	}
	var buf []byte
	// A writer that died mid-line left no newline; start a fresh line so
	// only its torn line is lost, not this one too.
	if torn, err := endsMidLine(f); err != nil {
		return Event{}, fmt.Errorf("append event: %w", err)
	} else if torn {
		buf = append(buf, '\n')
	}
	buf = append(append(buf, line...), '\n')
	if _, err := f.Write(buf); err != nil {
		return Event{}, fmt.Errorf("append event to %s: %w", path, err)
	}
	return e, nil
}

// lastEventSeq finds the newest event by reading events.jsonl from its end,
// so appending stays cheap however long the log grows.
func lastEventSeq(f *os.File) (int64, error) {
	var last int64
	err := scanLinesBackward(f, func(line []byte) bool {
		e, ok := parseEvent(line)
		if ok {
			last = e.Seq
		}
		return !ok
	})
	return last, err
}

func endsMidLine(f *os.File) (bool, error) {
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return false, err
	}
	var b [1]byte
	if _, err := f.ReadAt(b[:], fi.Size()-1); err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	return b[0] != '\n', nil
}

func capTail(s string) string {
	if len(s) <= maxEventTail {
		return s
	}
	s = s[len(s)-maxEventTail:]
	for len(s) > 0 && !utf8.RuneStart(s[0]) {
		s = s[1:]
	}
	return s
}

// LastEventSeq is the seq of the newest event in the log, 0 when there is
// none. It reads only the log's end, so it costs the same however long the
// log is: a session that starts takes it as its cursor.
func (r *Registry) LastEventSeq() (int64, error) {
	f, err := os.Open(r.eventsPath())
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read events: %w", err)
	}
	defer f.Close()
	last, err := lastEventSeq(f)
	if err != nil {
		return 0, fmt.Errorf("read events: %w", err)
	}
	return last, nil
}

// Events returns the events with Seq > afterSeq, oldest first, as
// ScanEvents reads them. Asking for recent events is cheap; for the whole
// log of a long-lived home, ScanEvents keeps memory bounded.
func (r *Registry) Events(afterSeq int64) ([]Event, error) {
	var evs []Event
	err := r.ScanEvents(afterSeq, func(e Event) error {
		evs = append(evs, e)
		return nil
	})
	return evs, err
}

// ScanEvents calls fn with each event with Seq > afterSeq, oldest first,
// until the end of the log or fn's first error (returned as is). Lines
// that do not parse (a writer crashed mid-line, garbage) are skipped. The
// first event wanted is found by bisecting the log (see eventOffset), so
// the cost is what comes after afterSeq, and memory stays bounded by one
// line whatever the log holds.
func (r *Registry) ScanEvents(afterSeq int64, fn func(Event) error) error {
	f, err := os.Open(r.eventsPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read events: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("read events: %w", err)
	}
	start, err := eventOffset(f, fi.Size(), afterSeq)
	if err != nil {
		return fmt.Errorf("read events: %w", err)
	}
	lr := newLineReader(f, start, scanBlock)
	last := afterSeq
	for {
		line, _, err := lr.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read events: %w", err)
		}
		e, ok := parseEvent(line)
		// Seqs grow down the file; anything out of order is not ours.
		if !ok || e.Seq <= last {
			continue
		}
		last = e.Seq
		if err := fn(e); err != nil {
			return err
		}
	}
}

// FollowEvents calls fn for every event after afterSeq, in order, then for
// each new one as it is appended, until ctx is done (it then returns
// ctx.Err()) or fn returns an error (returned as is).
func (r *Registry) FollowEvents(ctx context.Context, afterSeq int64, fn func(Event) error) error {
	ticker := time.NewTicker(followPollInterval)
	defer ticker.Stop()
	last := afterSeq
	var seenSize int64 = -1
	for {
		var size int64
		if fi, err := os.Stat(r.eventsPath()); err == nil {
			size = fi.Size()
		}
		if size != seenSize {
			// Stat before reading: an event appended in between is read
			// now or, because the size moved on, on the next tick.
			seenSize = size
			err := r.ScanEvents(last, func(e Event) error {
				if err := fn(e); err != nil {
					return err
				}
				last = e.Seq
				return nil
			})
			if err != nil {
				return err
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ticker.C:
		}
	}
}
