//go:build !unix

package bgtasks

import (
	"errors"
	"fmt"
	"os"
)

func (r *Registry) withLock(fn func() error) error { return noFlock(r.lockPath()) }

func tryLock(f *os.File) (bool, error) { return false, noFlock(f.Name()) }

func noFlock(path string) error {
	return fmt.Errorf("lock %s: %w: the task registry needs flock (Linux or another Unix)", path, errors.ErrUnsupported)
}

func lockFile(f *os.File) error { return noFlock(f.Name()) }

func unlockFile(*os.File) {}
