package safefile

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Key returns the size random bytes in path (0600), making them on first
// use, so that of two processes making it at once both end with the same
// key: it is written to a private temporary file, then linked into place
// (the link fails if the other won, whose key is then read). A file of
// another size is an error that says to remove it.
func Key(path string, size int) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err == nil && len(b) == size {
		return b, nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("key %s: %w", path, err)
	}
	if err == nil {
		return nil, fmt.Errorf("key %s: %d bytes, want %d; remove it and a new one is made", path, len(b), size)
	}
	key := make([]byte, size)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("key %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("key %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	_, werr := tmp.Write(key)
	if err := errors.Join(werr, tmp.Sync(), tmp.Close()); err != nil {
		return nil, fmt.Errorf("key %s: %w", path, err)
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return Key(path, size)
		}
		return nil, fmt.Errorf("key %s: %w", path, err)
	}
	return key, nil
}
