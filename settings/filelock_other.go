//go:build !unix

package settings

// withFileLock runs fn; there is no cross-process lock on this system.
func withFileLock(path string, fn func() error) error { return fn() }
