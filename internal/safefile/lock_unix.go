//go:build unix

package safefile

import (
	"context"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// flock locks belong to the open file, so goroutines of one process
// exclude each other as well as other processes, and the kernel drops a
// lock when its holder dies.

// Lock waits for an exclusive flock on f, retrying a wait a signal broke.
func Lock(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			if err != nil {
				return fmt.Errorf("lock %s: %w", f.Name(), err)
			}
			return nil
		}
	}
}

// TryLock takes an exclusive flock on f without waiting; false means
// another open file holds it.
func TryLock(f *os.File) (bool, error) {
	for {
		switch err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err {
		case nil:
			return true, nil
		case unix.EWOULDBLOCK:
			return false, nil
		case unix.EINTR:
			continue
		default:
			return false, fmt.Errorf("lock %s: %w", f.Name(), err)
		}
	}
}

// Unlock releases f's flock (closing f does too).
func Unlock(f *os.File) { _ = unix.Flock(int(f.Fd()), unix.LOCK_UN) }

// lockPoll is how often LockContext tries again.
const lockPoll = 20 * time.Millisecond

// LockContext is Lock that gives up when ctx ends: it tries without
// waiting, every lockPoll, as a blocked flock cannot be interrupted.
func LockContext(ctx context.Context, f *os.File) error {
	for {
		ok, err := TryLock(f)
		if ok || err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(lockPoll):
		}
	}
}
