package tui

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hangdog/hangdog/internal/safefile"
)

// maxHistory is how many entries the history keeps, in memory and on disk.
const maxHistory = 1000

// history is the prompt's input history, persisted one entry a line in a
// private file. Lines typed to a running command are never recorded: they
// may be answers to password prompts.
type history struct {
	path    string
	entries []string
	pos     int    // len(entries) when not browsing
	draft   string // what was typed before browsing began
}

// loadHistory reads the file if there is one; a missing file is an empty
// history.
func loadHistory(path string) (*history, error) {
	h := &history{path: path}
	if path == "" {
		return h, nil
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return h, nil
	}
	if err != nil {
		return h, fmt.Errorf("read history %s: %w", path, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if line := sc.Text(); line != "" {
			h.entries = append(h.entries, line)
		}
	}
	if len(h.entries) > maxHistory {
		h.entries = h.entries[len(h.entries)-maxHistory:]
	}
	h.pos = len(h.entries)
	return h, sc.Err()
}

// add records an entry (not a repeat of the last one) and appends it to the
// file, trimming the file when it has grown to twice the limit.
func (h *history) add(entry string) error {
	h.pos = len(h.entries)
	entry = strings.TrimSpace(entry)
	if entry == "" || strings.ContainsAny(entry, "\r\n") {
		return nil
	}
	if n := len(h.entries); n > 0 && h.entries[n-1] == entry {
		return nil
	}
	h.entries = append(h.entries, entry)
	if len(h.entries) > 2*maxHistory {
		h.entries = append([]string(nil), h.entries[len(h.entries)-maxHistory:]...)
		h.pos = len(h.entries)
		return h.rewrite()
	}
	h.pos = len(h.entries)
	if h.path == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(h.path), 0o700); err != nil {
		return fmt.Errorf("save history: %w", err)
	}
	f, err := os.OpenFile(h.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("save history: %w", err)
	}
	_, werr := f.WriteString(entry + "\n")
	cerr := f.Close()
	if werr != nil || cerr != nil {
		return fmt.Errorf("save history %s: %w", h.path, errors.Join(werr, cerr))
	}
	return nil
}

func (h *history) rewrite() error {
	if h.path == "" {
		return nil
	}
	if err := safefile.Write(h.path, []byte(strings.Join(h.entries, "\n")+"\n")); err != nil {
		return fmt.Errorf("save history: %w", err)
	}
	return nil
}

// prev returns the entry before the one shown, remembering the draft.
func (h *history) prev(current string) (string, bool) {
	if h.pos == 0 {
		return "", false
	}
	if h.pos == len(h.entries) {
		h.draft = current
	}
	h.pos--
	return h.entries[h.pos], true
}

// next returns the entry after the one shown, or the draft past the end.
func (h *history) next() (string, bool) {
	if h.pos >= len(h.entries) {
		return "", false
	}
	h.pos++
	if h.pos == len(h.entries) {
		return h.draft, true
	}
	return h.entries[h.pos], true
}
