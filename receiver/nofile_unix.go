//go:build unix

package receiver

import "syscall"

// nofileLimit is this process's RLIMIT_NOFILE (soft: Go raises it to the
// hard limit at start); 0 if it cannot be read.
func nofileLimit() uint64 {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return 0
	}
	return uint64(l.Cur)
}
