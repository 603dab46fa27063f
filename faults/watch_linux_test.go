//go:build linux

package faults

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A file watcher on a path in a directory every user can write says so
// at create, as a warning on stderr and in --json; in a private directory
// it says nothing.
func TestWatchCreateWarnsOfSharedDirectory(t *testing.T) {
	w := newWorld(t)
	shared := filepath.Join(w.root, "shared")
	if err := os.Mkdir(shared, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(shared, 0o1777); err != nil {
		t.Fatal(err)
	}
	notes := filepath.Join(shared, "notes.txt")
	if err := os.WriteFile(notes, []byte("v0"), 0o600); err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, id := range []string{"w1", "w2", "w3"} {
			w.run("watch", "rm", id)
		}
	}()
	r := w.run("watch", "create", "--kind", "file", notes)
	if r.code != 0 || !strings.Contains(r.stderr, "hangdog: warning: every user can write "+shared) {
		t.Errorf("watch create in a 1777 directory: exit %d, stderr %q; want a warning that names it", r.code, r.stderr)
	}
	r = w.run("watch", "create", "--json", "--kind", "file", notes)
	if r.code != 0 || !strings.Contains(r.stdout, `"warning":"every user can write`) {
		t.Errorf("watch create --json: exit %d, stdout %q; want the warning in the JSON", r.code, r.stdout)
	}
	private := filepath.Join(w.root, "own.txt")
	if err := os.WriteFile(private, []byte("v0"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := w.run("watch", "create", "--kind", "file", private); r.code != 0 || strings.Contains(r.stderr, "warning") {
		t.Errorf("watch create in a private directory: exit %d, stderr %q; want no warning", r.code, r.stderr)
	}
}
