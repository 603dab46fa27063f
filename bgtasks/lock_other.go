//go:build !unix

package bgtasks

import (
	"errors"
	"fmt"
)

func (r *Registry) withLock(fn func() error) error {
	return fmt.Errorf("lock %s: %w: the task registry needs flock (Linux or another Unix)", r.lockPath(), errors.ErrUnsupported)
}
