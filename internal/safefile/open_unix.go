//go:build unix

package safefile

import (
	"os"

	"golang.org/x/sys/unix"
)

// openPlain is os.OpenFile for the regular files of a home, without Go's
// attempt to register each with its network poller: Linux refuses regular
// files to epoll, and the attempt costs four fcntl and an epoll_ctl per
// open (2 system calls instead of 6, seen under strace). Every such call
// wakes the idle watchers' runner's threads, which open a watcher's lock
// and files at each check (docs/benchmarks.md, "Idle watchers").
func openPlain(path string, flag int, perm os.FileMode) (*os.File, error) {
	for {
		fd, err := unix.Open(path, flag|unix.O_CLOEXEC, uint32(perm.Perm()))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: path, Err: err}
		}
		return os.NewFile(uintptr(fd), path), nil
	}
}
