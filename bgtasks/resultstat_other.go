//go:build !unix

package bgtasks

import (
	"os"
	"path/filepath"
	"time"
)

// resultWritten says when task id's result file was written, and whether
// it has one; without one, whether the task's directory is there. dir is
// the open tasks directory.
func resultWritten(dir *os.File, id string) (written time.Time, ended, exists bool) {
	if fi, err := os.Lstat(filepath.Join(dir.Name(), id, resultFileName)); err == nil {
		return fi.ModTime(), true, true
	}
	_, err := os.Lstat(filepath.Join(dir.Name(), id))
	return time.Time{}, false, err == nil
}
