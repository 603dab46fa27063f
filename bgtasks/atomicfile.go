package bgtasks

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/hangdog/hangdog/internal/safefile"
)

func writeJSONAtomic(path string, v any) error {
	data, err := jsonFile(path, v)
	if err != nil {
		return err
	}
	return safefile.Write(path, data)
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
