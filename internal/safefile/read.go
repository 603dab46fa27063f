package safefile

import (
	"io"
	"os"
)

// ReadFile is os.ReadFile for a home's small records, opened as openPlain
// opens them.
func ReadFile(path string) ([]byte, error) {
	f, err := openPlain(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}
