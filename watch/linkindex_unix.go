//go:build unix

package watch

import (
	"os"
	"syscall"
)

// dirLinks is a directory's link count: 2 and one per subdirectory, so a
// watcher created or removed changes it whatever the mtime's granularity.
func dirLinks(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 0
}
