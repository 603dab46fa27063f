package bgtasks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
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
