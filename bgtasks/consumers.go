package bgtasks

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hangdog/hangdog/internal/safefile"
)

// A consumer is a named reader of the event log (the MCP server, a harness
// hook) that must see each event once. Its cursor, the last seq it was
// given, lives in <home>/consumers/<name>.cursor.

// validConsumerName: a letter or digit, then up to 63 letters, digits, '.',
// '_' or '-' (no path separators, no hidden files).
func validConsumerName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || c != '.' && c != '_' && c != '-') {
			return false
		}
	}
	return true
}

func (r *Registry) cursorPath(consumer string) (string, error) {
	if !validConsumerName(consumer) {
		return "", fmt.Errorf("consumer name %q: use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit", consumer)
	}
	return filepath.Join(r.consumersDir(), consumer+".cursor"), nil
}

func readCursor(path string) (seq int64, ok bool, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("read cursor: %w", err)
	}
	seq, err = strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, false, fmt.Errorf("read cursor %s: %w", path, err)
	}
	return seq, true, nil
}

func writeCursor(path string, seq int64) error {
	return safefile.Write(path, []byte(strconv.FormatInt(seq, 10)+"\n"))
}

// Undelivered returns the events after the consumer's cursor, oldest first.
// It does not move the cursor; MarkDelivered does, once the events are
// really handed over. A consumer seen for the first time starts at the
// current end of the log, so it is told about what happens from now on and
// not flooded with history; its first call returns nothing.
func (r *Registry) Undelivered(consumer string) ([]Event, error) {
	seq, fresh, err := r.cursor(consumer)
	if err != nil || fresh {
		return nil, err
	}
	return r.Events(seq)
}

// Cursor is the consumer's cursor, the last seq it was given, registering
// it at the current end of the log when it is seen for the first time (as
// Undelivered does). A reader that streams the log from there
// (ScanEvents) reads no more than it hands over.
func (r *Registry) Cursor(consumer string) (int64, error) {
	seq, _, err := r.cursor(consumer)
	return seq, err
}

// cursor reads the consumer's cursor; fresh reports that it was registered
// now, at the end of the log.
func (r *Registry) cursor(consumer string) (seq int64, fresh bool, err error) {
	path, err := r.cursorPath(consumer)
	if err != nil {
		return 0, false, err
	}
	seq, ok, err := readCursor(path)
	if err != nil || ok {
		return seq, false, err
	}
	err = r.withLock(func() error {
		var ok bool
		if seq, ok, err = readCursor(path); err != nil || ok {
			return err // another process registered it meanwhile
		}
		f, err := os.OpenFile(r.eventsPath(), os.O_RDONLY|os.O_CREATE, 0o600)
		if err != nil {
			return fmt.Errorf("read events: %w", err)
		}
		defer f.Close()
		if seq, err = lastEventSeq(f); err != nil {
			return fmt.Errorf("read events: %w", err)
		}
		fresh = true
		return writeCursor(path, seq)
	})
	if err != nil {
		return 0, false, fmt.Errorf("register event consumer %s: %w", consumer, err)
	}
	return seq, fresh, nil
}

// MarkDelivered moves the consumer's cursor to seq. It never moves it back,
// so a slow consumer process cannot re-deliver what a faster one already
// acknowledged.
func (r *Registry) MarkDelivered(consumer string, seq int64) error {
	path, err := r.cursorPath(consumer)
	if err != nil {
		return err
	}
	err = r.withLock(func() error {
		cur, ok, err := readCursor(path)
		if err != nil && !errors.Is(err, strconv.ErrSyntax) {
			return err
		}
		if ok && seq <= cur {
			return nil
		}
		return writeCursor(path, seq)
	})
	if err != nil {
		return fmt.Errorf("mark events delivered to %s: %w", consumer, err)
	}
	return nil
}

// ForgetConsumer removes a consumer's cursor: a session that named itself
// afresh (an MCP session without --consumer) calls it when it ends cleanly,
// since nobody will ever ask for that name again.
func (r *Registry) ForgetConsumer(consumer string) error {
	path, err := r.cursorPath(consumer)
	if err != nil {
		return err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("forget event consumer %s: %w", consumer, err)
	}
	_ = os.Remove(filepath.Join(r.consumersDir(), consumer+".lock")) // WithConsumer's, if it ever ran
	return nil
}
