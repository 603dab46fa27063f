//go:build !unix

package bgtasks

import (
	"errors"
	"fmt"
	"os"
)

func (r *Registry) withLock(fn func() error) error {
	return fmt.Errorf("lock %s: %w: the task registry needs flock (Linux or another Unix)", r.lockPath(), errors.ErrUnsupported)
}

func tryLock(f *os.File) (bool, error) {
	return false, fmt.Errorf("lock %s: %w: the task registry needs flock (Linux or another Unix)", f.Name(), errors.ErrUnsupported)
}
