//go:build !linux

package watch

import (
	"fmt"
	"io/fs"
	"os"
)

// openWatched opens a watched file for reading. Without Linux's O_PATH a
// link's owner cannot be checked race-free, so no final symlink is
// followed (hangdog runs on Linux; this keeps the package building).
func openWatched(path string) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("%s is a symlink; hangdog does not follow one here: watch the file it names instead", path)
	}
	return os.Open(path)
}

// othersCanWrite is Linux's; here nothing is known.
func othersCanWrite(string) string { return "" }
