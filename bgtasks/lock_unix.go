//go:build unix

package bgtasks

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// withLock runs fn holding an exclusive flock on <home>/lock. flock locks
// belong to the open file, so goroutines of one process exclude each other
// as well as other processes, and the kernel drops the lock if the holder
// dies.
func (r *Registry) withLock(fn func() error) error {
	f, err := os.OpenFile(r.lockPath(), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open lock: %w", err)
	}
	defer f.Close()
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("lock %s: %w", r.lockPath(), err)
	}
	defer func() { _ = unix.Flock(int(f.Fd()), unix.LOCK_UN) }()
	return fn()
}

// tryLock takes an exclusive flock on f without waiting; false means another
// open file holds it.
func tryLock(f *os.File) (bool, error) {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		switch err {
		case nil:
			return true, nil
		case unix.EWOULDBLOCK:
			return false, nil
		case unix.EINTR:
			continue
		}
		return false, fmt.Errorf("lock %s: %w", f.Name(), err)
	}
}

// lockFile waits for an exclusive flock on f.
func lockFile(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			return err
		}
	}
}

func unlockFile(f *os.File) { _ = unix.Flock(int(f.Fd()), unix.LOCK_UN) }
