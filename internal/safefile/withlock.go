package safefile

import (
	"fmt"
	"os"
)

// WithLock runs fn holding an exclusive flock on the file at path, made
// (0600) if missing.
func WithLock(path string, fn func() error) error {
	f, err := openPlain(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open lock %s: %w", path, err)
	}
	defer f.Close()
	if err := Lock(f); err != nil {
		return err
	}
	defer Unlock(f)
	return fn()
}
