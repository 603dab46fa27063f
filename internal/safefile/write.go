package safefile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// Write replaces path with data so that a reader sees either the old
// content or the new, never a mix, even if this process dies midway: the
// data goes to a private (0600) temporary file in the same directory that
// is renamed over path. There is no fsync: it would add milliseconds to
// every command hangdog starts, and it only guards against a power cut
// (WriteDurable does).
func Write(path string, data []byte) error {
	tmp, err := NewTemp(path)
	if err != nil {
		return err
	}
	return Commit(tmp, path, bytes.NewReader(data))
}

// WriteDurable is Write for what was promised to someone outside (a
// sender answered 202, a person told their decision is recorded, a user's
// settings): the temporary file is synced before the rename and the
// directory after it, so the file survives a power cut too.
func WriteDurable(path string, data []byte) error {
	tmp, err := NewTemp(path)
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		discard(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		discard(tmp)
		return fmt.Errorf("sync %s: %w", path, err)
	}
	if err := Commit(tmp, path, bytes.NewReader(nil)); err != nil {
		return err
	}
	dir, err := os.Open(filepath.Dir(path))
	if err != nil {
		return fmt.Errorf("sync the directory of %s: %w", path, err)
	}
	defer dir.Close()
	if err := dir.Sync(); err != nil {
		return fmt.Errorf("sync the directory of %s: %w", path, err)
	}
	return nil
}

// NewTemp makes the private temporary file that Commit turns into path: a
// dot file beside it, so listings of the directory skip it.
// It is os.CreateTemp's, opened as openPlain opens files.
func NewTemp(path string) (*os.File, error) {
	dir, base := filepath.Split(path)
	for try := 0; ; try++ {
		tmp, err := openPlain(filepath.Join(dir, "."+base+".tmp-"+strconv.FormatUint(uint64(rand.Uint32()), 10)), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) && try < 10000 {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("write %s: %w", path, err)
		}
		return tmp, nil
	}
}

// Commit appends what r holds to tmp (from NewTemp), closes it and renames
// it over path; on failure it removes tmp.
func Commit(tmp *os.File, path string, r io.Reader) error {
	if _, err := io.Copy(tmp, r); err != nil {
		discard(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// discard closes and removes a temporary file that will not be committed.
func discard(tmp *os.File) {
	_ = tmp.Close()
	_ = os.Remove(tmp.Name())
}
