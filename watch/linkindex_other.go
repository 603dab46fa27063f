//go:build !unix

package watch

import "os"

// dirLinks: no link count here; the index relies on the mtime alone.
func dirLinks(os.FileInfo) uint64 { return 0 }
