//go:build unix

package bgtasks

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// resultWritten says when task id's result file was written, false when it
// has none. dir is the open tasks directory: a stat relative to it walks
// two path components instead of the home's whole path, which is most of
// what looking at thousands of tasks costs.
func resultWritten(dir *os.File, id string) (time.Time, bool) {
	var st unix.Stat_t
	if err := unix.Fstatat(int(dir.Fd()), id+"/"+resultFileName, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return time.Time{}, false
	}
	return time.Unix(st.Mtim.Unix()), true
}
