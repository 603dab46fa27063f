//go:build !unix

package safefile

import "os"

// openPlain is os.OpenFile here.
func openPlain(path string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag, perm)
}
