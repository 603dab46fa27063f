package bgtasks

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/hangdog/hangdog/internal/safefile"
)

// compactEventsFrom is the size from which the event log is compacted: below
// it, old events cost less than rewriting the file would.
const compactEventsFrom = 1 << 20

// compactEvents drops the events older than cutoff from events.jsonl, once
// the log has reached compactEventsFrom bytes, and returns how many lines it
// dropped. The newest event always stays, so sequence numbers go on from it.
// The kept lines are copied to a new file renamed over the log, under the
// registry lock, so no append is lost; readers open the log by name and ask
// for events by sequence number, so a follower carries on.
func (r *Registry) compactEvents(cutoff time.Time) (int, error) {
	var dropped int
	err := r.withLock(func() error {
		f, err := os.Open(r.eventsPath())
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("compact events: %w", err)
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil || fi.Size() < compactEventsFrom {
			return err
		}
		cut, lines, err := firstEventSince(f, cutoff)
		if err != nil || cut == 0 {
			return err
		}
		if _, err := f.Seek(cut, io.SeekStart); err != nil {
			return fmt.Errorf("compact events: %w", err)
		}
		tmp, err := safefile.NewTemp(r.eventsPath())
		if err != nil {
			return fmt.Errorf("compact events: %w", err)
		}
		if err := safefile.Commit(tmp, r.eventsPath(), f); err != nil {
			return fmt.Errorf("compact events: %w", err)
		}
		dropped = lines
		return nil
	})
	return dropped, err
}

// firstEventSince returns the offset of the first event at or after cutoff
// (or of the last event, if every one is older) and how many lines come
// before it. Lines that do not parse before that point go with the old ones.
func firstEventSince(f *os.File, cutoff time.Time) (offset int64, linesBefore int, err error) {
	lr := newLineReader(f, 0, scanBlock)
	var lastEvent int64
	lastEventLine := 0
	for line := 0; ; line++ {
		b, start, err := lr.next()
		if errors.Is(err, io.EOF) {
			return lastEvent, lastEventLine, nil // every event is old: keep the newest
		}
		if err != nil {
			return 0, 0, err
		}
		if e, ok := parseEvent(b); ok {
			if !e.Time.Before(cutoff) {
				return start, line, nil
			}
			lastEvent, lastEventLine = start, line
		}
	}
}
