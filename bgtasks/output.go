package bgtasks

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/hangdog/hangdog/internal/termtext"
)

// TailOutput returns up to the last maxBytes of a task's raw output and how
// many bytes came before them. A task that has written nothing yet has an
// empty tail.
func (r *Registry) TailOutput(id string, maxBytes int64) (tail []byte, dropped int64, err error) {
	if err := checkID(id); err != nil {
		return nil, 0, err
	}
	dir := r.taskDir(id)
	if _, err := os.Stat(dir); err != nil {
		return nil, 0, notFound(id)
	}
	path := (&Task{Dir: dir}).OutputPath()
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("read output of task %s: %w", id, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, fmt.Errorf("read output of task %s: %w", id, err)
	}
	size := fi.Size()
	start := max(size-max(maxBytes, 0), 0)
	buf := make([]byte, size-start)
	n, err := f.ReadAt(buf, start)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, 0, fmt.Errorf("read output of task %s: %w", id, err)
	}
	return buf[:n], start, nil
}

// TailLines returns the last lines of a task's output as plain text (see
// internal/termtext), reading at most maxBytes from the end of the log. When
// the log is longer than that, the first, partial line read is left out.
func (r *Registry) TailLines(id string, lines int, maxBytes int64) (string, error) {
	raw, dropped, err := r.TailOutput(id, maxBytes)
	if err != nil || lines <= 0 {
		return "", err
	}
	if dropped > 0 {
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			raw = raw[i+1:]
		}
	}
	return termtext.LastLines(termtext.Plain(raw), lines), nil
}
