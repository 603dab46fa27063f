//go:build !unix

package bgtasks

import (
	"os"
	"path/filepath"
	"time"
)

// resultWritten says when task id's result file was written, false when it
// has none; dir is the open tasks directory.
func resultWritten(dir *os.File, id string) (time.Time, bool) {
	fi, err := os.Lstat(filepath.Join(dir.Name(), id, resultFileName))
	if err != nil {
		return time.Time{}, false
	}
	return fi.ModTime(), true
}
