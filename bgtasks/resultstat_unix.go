//go:build unix

package bgtasks

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// resultWritten says when task id's result file was written, and whether
// it has one; without one, whether the task's directory is there. dir is
// the open tasks directory: a stat relative to it walks two path components
// instead of the home's whole path, which is most of what looking at
// thousands of tasks costs.
func resultWritten(dir *os.File, id string) (written time.Time, ended, exists bool) {
	var st unix.Stat_t
	if err := unix.Fstatat(int(dir.Fd()), id+"/"+resultFileName, &st, unix.AT_SYMLINK_NOFOLLOW); err == nil {
		return time.Unix(st.Mtim.Unix()), true, true
	}
	return time.Time{}, false, unix.Fstatat(int(dir.Fd()), id, &st, unix.AT_SYMLINK_NOFOLLOW) == nil
}
