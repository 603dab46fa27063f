package mcpserver

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/taskctl"
)

// A task's output.log only grows while it runs and is never rewritten, so
// reading a range of it needs no coordination with its supervisor.

// logSize is how many bytes the task has written so far.
func logSize(t *bgtasks.Task) (int64, error) {
	fi, err := os.Stat(t.OutputPath())
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read output of task %s: %w", t.ID, err)
	}
	return fi.Size(), nil
}

// readLog reads up to n bytes of the task's log from offset off.
func readLog(t *bgtasks.Task, off int64, n int) ([]byte, error) {
	f, err := os.Open(t.OutputPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read output of task %s: %w", t.ID, err)
	}
	defer f.Close()
	buf := make([]byte, n)
	got, err := f.ReadAt(buf, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read output of task %s: %w", t.ID, err)
	}
	return buf[:got], nil
}

// logWindow reads the start and the end of a task's log, as much as a
// result can show.
func logWindow(t *bgtasks.Task, size int64) (taskctl.Window, error) {
	f, err := os.Open(t.OutputPath())
	if errors.Is(err, fs.ErrNotExist) {
		return taskctl.Window{}, nil
	}
	if err != nil {
		return taskctl.Window{}, fmt.Errorf("read output of task %s: %w", t.ID, err)
	}
	defer f.Close()
	w, err := taskctl.ReadWindow(f, size, taskctl.HeadKeep, taskctl.TailKeep)
	if err != nil {
		return taskctl.Window{}, fmt.Errorf("read output of task %s: %w", t.ID, err)
	}
	return w, nil
}
