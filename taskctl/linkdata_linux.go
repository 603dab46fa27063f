//go:build linux

package taskctl

import (
	"encoding/binary"
	"fmt"

	"github.com/hangdog/hangdog/internal/tailbuf"
	"github.com/hangdog/hangdog/supervisor/proto"
)

// unloggedTail is how much of the output the log could not take a Link
// keeps for its caller's result.
const unloggedTail = 256 << 10

// inlineOutput is output the supervisor sent on the link because the log
// could not take it (proto.FrameData), waiting to be handed out after the part of
// the log that came before it.
type inlineOutput struct {
	queue [][]byte
	tail  *tailbuf.Buffer
}

// takeData records a proto.FrameData payload: the log's length before it, then
// the bytes. The frame reader reuses its buffer, so the bytes are copied.
func (l *Link) takeData(p []byte) error {
	if len(p) < 8 {
		return fmt.Errorf("output frame of %d bytes: %w", len(p), proto.ErrCorruptLink)
	}
	l.avail = max(l.avail, int64(binary.BigEndian.Uint64(p)))
	l.inline.queue = append(l.inline.queue, append([]byte(nil), p[8:]...))
	return nil
}

// nextInline hands out the oldest output the log could not take.
func (l *Link) nextInline() (Event, error) {
	p := l.inline.queue[0]
	l.inline.queue[0] = nil
	l.inline.queue = l.inline.queue[1:]
	if l.inline.tail == nil {
		l.inline.tail = tailbuf.New(unloggedTail)
	}
	l.inline.tail.Write(p)
	if l.sink != nil {
		n, err := l.sink.Write(p)
		if err != nil {
			return Event{}, fmt.Errorf("%w: %v", ErrOutputClosed, err)
		}
		return Event{Kind: EventOutput, Written: int64(n)}, nil
	}
	return Event{Kind: EventOutput, Output: p, Written: int64(len(p))}, nil
}

// Unlogged returns the end of the output this caller got that the task's
// log could not keep (at most 256 KiB of it), and how many such bytes there
// were in all: zero unless the log's file system filled up.
func (l *Link) Unlogged() ([]byte, int64) {
	if l.inline.tail == nil {
		return nil, 0
	}
	b, _ := l.inline.tail.Bytes()
	return b, l.inline.tail.Total()
}
