package bgtasks

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
)

const (
	// scanBlock is how much of events.jsonl is read per step from its end.
	scanBlock = 64 << 10
	// maxEventLine: a longer line cannot be one this package wrote (Tail is
	// capped), so it is garbage and skipped without being held in memory.
	maxEventLine = 1 << 20
)

// scanLinesBackward calls fn with each non-empty line of f, last line first,
// without its newline, until fn returns false. The slice is only valid
// during the call. Memory stays bounded by maxEventLine whatever the file
// holds.
func scanLinesBackward(f *os.File, fn func(line []byte) bool) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	pos := fi.Size()
	var carry []byte // the end of a line whose start has not been read yet
	overlong := false
	buf := make([]byte, 0, scanBlock)
	for pos > 0 {
		n := min(int64(scanBlock), pos)
		pos -= n
		buf = buf[:n]
		if _, err := f.ReadAt(buf, pos); err != nil && err != io.EOF {
			return fmt.Errorf("read %s: %w", f.Name(), err)
		}
		data := append(buf, carry...)
		for {
			i := bytes.LastIndexByte(data, '\n')
			if i < 0 {
				break
			}
			line := data[i+1:]
			data = data[:i]
			if overlong {
				overlong = false
				continue
			}
			if len(line) > 0 && !fn(line) {
				return nil
			}
		}
		carry = append(carry[:0], data...)
		if len(carry) > maxEventLine {
			carry = carry[:0]
			overlong = true
		}
		buf = buf[:0]
	}
	if !overlong && len(carry) > 0 {
		fn(carry)
	}
	return nil
}

// parseEvent decodes one line; a torn or foreign line gives ok == false.
func parseEvent(line []byte) (Event, bool) {
	var e Event
	if err := json.Unmarshal(line, &e); err != nil || e.Seq <= 0 || e.Kind == "" {
		return Event{}, false
	}
	return e, true
}

// probeBlock is what one step of eventOffset's search reads: a few lines.
const probeBlock = 4 << 10

// lineReader reads events.jsonl forward from an offset, one line at a time,
// in memory bounded by maxEventLine whatever the file holds: a longer line
// is skipped whole.
type lineReader struct {
	br   *bufio.Reader
	pos  int64  // offset of the next line
	long []byte // a line longer than br's buffer, gathered
}

func newLineReader(f *os.File, off int64, bufSize int) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(io.NewSectionReader(f, off, math.MaxInt64-off), bufSize), pos: off}
}

// next returns the next line without its newline, and its offset; io.EOF
// at the end. A last line without a newline is returned too, as
// scanLinesBackward does: the event it holds, if it parses, is complete and
// counted by lastEventSeq. The line is only valid until the next call.
func (lr *lineReader) next() (line []byte, start int64, err error) {
	for {
		start = lr.pos
		b, err := lr.br.ReadSlice('\n')
		lr.pos += int64(len(b))
		switch {
		case err == nil:
			return b[:len(b)-1], start, nil
		case errors.Is(err, bufio.ErrBufferFull):
			lr.long = append(lr.long[:0], b...)
			for errors.Is(err, bufio.ErrBufferFull) {
				b, err = lr.br.ReadSlice('\n')
				lr.pos += int64(len(b))
				if len(lr.long) <= maxEventLine {
					lr.long = append(lr.long, b...)
				}
			}
			if err != nil && !errors.Is(err, io.EOF) {
				return nil, start, fmt.Errorf("read %s: %w", lr.name(), err)
			}
			if len(lr.long) > maxEventLine {
				if err != nil {
					return nil, start, io.EOF
				}
				continue // garbage no writer of this package made
			}
			return bytes.TrimSuffix(lr.long, []byte{'\n'}), start, nil
		case errors.Is(err, io.EOF):
			if len(b) > 0 {
				return b, start, nil
			}
			return nil, start, io.EOF
		default:
			return nil, start, fmt.Errorf("read %s: %w", lr.name(), err)
		}
	}
}

// skip passes over the rest of the line the reader is in without keeping
// it; io.EOF when there is no newline after it.
func (lr *lineReader) skip() error {
	for {
		b, err := lr.br.ReadSlice('\n')
		lr.pos += int64(len(b))
		if !errors.Is(err, bufio.ErrBufferFull) {
			return err
		}
	}
}

func (lr *lineReader) name() string { return eventsFileName }

// eventOffset returns where to start reading f (size bytes) for the events
// after afterSeq: a line start before which no event has a greater seq. It
// finds it by bisecting the file, since appends under the registry lock
// make seqs increase down the file (compaction only drops a prefix): a few
// small reads whatever the log's length, and no index to keep in step with
// the log, to rebuild after a crash, or to distrust.
func eventOffset(f *os.File, size, afterSeq int64) (int64, error) {
	lo, hi := int64(0), size
	if afterSeq <= 0 {
		return 0, nil
	}
	for hi-lo > probeBlock {
		mid := lo + (hi-lo)/2
		lr := newLineReader(f, mid, probeBlock)
		// The line mid falls in (or starts at) is skipped: when it holds
		// an event, the seq of the one found after it is no smaller.
		if err := lr.skip(); err != nil {
			if errors.Is(err, io.EOF) {
				hi = mid
				continue
			}
			return 0, err
		}
		found := false
		for lr.pos < hi {
			line, _, err := lr.next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return 0, err
			}
			if e, ok := parseEvent(line); ok {
				if e.Seq <= afterSeq {
					lo, found = lr.pos, true
				}
				break
			}
		}
		if !found {
			hi = mid
		}
	}
	return lo, nil
}
