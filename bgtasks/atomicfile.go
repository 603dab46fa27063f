package bgtasks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// WriteFileAtomic replaces path with data so that a reader sees either the
// old content or the new, never a mix, even if this process dies midway: the
// data goes to a temp file in the same directory (CreateTemp makes it 0600)
// that is renamed over path. There is no fsync: it would add milliseconds to
// every command hangdog starts, and it only guards against a power cut,
// which ends every task anyway; a file left empty by one is reported by Get
// and skipped by List.
func WriteFileAtomic(path string, data []byte) error {
	tmp, err := createTemp(path)
	if err != nil {
		return err
	}
	return commitTemp(tmp, path, data)
}

// WriteFileDurable is WriteFileAtomic for what was promised to someone
// outside (the receiver answers a sender 202 only after its delivery is
// written): the temp file is synced before the rename and the directory
// after it, so the file survives a power cut too, not only a crash of
// this process.
func WriteFileDurable(path string, data []byte) error {
	tmp, err := createTemp(path)
	if err != nil {
		return err
	}
	tmpName := tmp.Name()
	if _, err := tmp.Write(data); err != nil {
		_ = tmp.Close()
		_ = os.Remove(tmpName)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		_ = tmp.Close()
		_ = os.Remove(tmpName)
		return fmt.Errorf("sync %s: %w", path, err)
	}
	if err := commitTempFrom(tmp, path, bytes.NewReader(nil)); err != nil {
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

// createTemp makes the temporary file that commitTemp turns into path.
func createTemp(path string) (*os.File, error) {
	dir, base := filepath.Split(path)
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return tmp, nil
}

// commitTemp writes data to tmp, closes it and renames it over path; on
// failure it removes tmp.
func commitTemp(tmp *os.File, path string, data []byte) error {
	return commitTempFrom(tmp, path, bytes.NewReader(data))
}

// commitTempFrom is commitTemp for content read from r.
func commitTempFrom(tmp *os.File, path string, r io.Reader) error {
	tmpName := tmp.Name()
	if _, err := io.Copy(tmp, r); err != nil {
		_ = tmp.Close()
		_ = os.Remove(tmpName)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		_ = os.Remove(tmpName)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmpName, path); err != nil {
		_ = os.Remove(tmpName)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func writeJSONAtomic(path string, v any) error {
	data, err := jsonFile(path, v)
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, data)
}

// jsonFile is v as the registry writes it to path: indented, one final
// newline.
func jsonFile(path string, v any) ([]byte, error) {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", path, err)
	}
	return append(data, '\n'), nil
}

// readJSON decodes path into v; a missing file is returned as is so callers
// can test it with errors.Is(err, fs.ErrNotExist).
func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return &decodeError{path: path, err: err}
	}
	return nil
}

// decodeError is a file that was read but does not hold what it should: cut
// short (a power cut, a full disk) or overwritten.
type decodeError struct {
	path string
	err  error
}

func (e *decodeError) Error() string { return fmt.Sprintf("read %s: %v", e.path, e.err) }
func (e *decodeError) Unwrap() error { return e.err }

func isDecodeError(err error) bool {
	var d *decodeError
	return errors.As(err, &d)
}
