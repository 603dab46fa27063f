package bgtasks

import "github.com/hangdog/hangdog/internal/safefile"

// withLock runs fn holding an exclusive flock on <home>/lock: goroutines
// of one process exclude each other as well as other processes, and the
// kernel drops the lock if the holder dies.
func (r *Registry) withLock(fn func() error) error {
	return safefile.WithLock(r.lockPath(), fn)
}
