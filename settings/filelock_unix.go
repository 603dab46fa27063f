//go:build unix

package settings

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/hangdog/hangdog/internal/safefile"
)

// withFileLock runs fn holding an exclusive flock on the directory of path
// (made private if missing), so that processes editing the same config file
// take turns at their read-modify-write instead of each replacing the file
// with its own edit of an older copy. Locking the directory leaves no lock
// file behind; the kernel drops the lock if the holder dies.
func withFileLock(path string, fn func() error) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("lock %s for editing: %w", path, err)
	}
	defer d.Close()
	if err := safefile.Lock(d); err != nil {
		return fmt.Errorf("lock %s for editing: %w", path, err)
	}
	defer safefile.Unlock(d)
	return fn()
}
