//go:build !unix

package safefile

import (
	"context"
	"errors"
	"fmt"
	"os"
)

func noFlock(f *os.File) error {
	return fmt.Errorf("lock %s: %w: hangdog needs flock (Linux or another Unix)", f.Name(), errors.ErrUnsupported)
}

// Lock is unsupported here.
func Lock(f *os.File) error { return noFlock(f) }

// TryLock is unsupported here.
func TryLock(f *os.File) (bool, error) { return false, noFlock(f) }

// Unlock does nothing here.
func Unlock(*os.File) {}

// LockContext is unsupported here.
func LockContext(_ context.Context, f *os.File) error { return noFlock(f) }
