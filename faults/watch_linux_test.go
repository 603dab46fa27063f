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

// A watcher whose state.json or spec.json is damaged is still listed
// (marked damaged), shown, paused (it is stopped already) and removed;
// resume refuses with what to do. As bgtasks does for a damaged task.
func TestCorruptWatcherIsListedAndRemovable(t *testing.T) {
	w := newWorld(t)
	file := filepath.Join(w.root, "watched.txt")
	if err := os.WriteFile(file, []byte("v0"), 0o600); err != nil {
		t.Fatal(err)
	}
	ids := []string{"w1", "w2"}
	for _, id := range ids {
		if r := w.run("watch", "create", "--kind", "file", file); r.code != 0 || !strings.HasPrefix(r.stdout, id+":") {
			t.Fatalf("watch create: exit %d %q %s", r.code, r.stdout, r.stderr)
		}
		defer w.run("watch", "rm", id)
	}
	// Stop the runners first, so no check rewrites a file meanwhile.
	for _, id := range ids {
		if r := w.run("watch", "pause", id); r.code != 0 {
			t.Fatalf("watch pause %s: %s", id, r.stderr)
		}
	}
	damage := map[string]string{"w1": "state.json", "w2": "spec.json"}
	for id, name := range damage {
		path := filepath.Join(w.home, "watchers", id, name)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b[:len(b)/2], 0o600); err != nil {
			t.Fatal(err)
		}
	}
	r := w.run("watch", "ls")
	for id, name := range damage {
		line := ""
		for l := range strings.Lines(r.stdout) {
			if strings.HasPrefix(l, id+" ") {
				line = l
			}
		}
		if !strings.Contains(line, "damaged") || !strings.Contains(line, name) {
			t.Errorf("watch ls: %s's line %q, want it listed as damaged naming %s\n%s%s", id, line, name, r.stdout, r.stderr)
		}
	}
	if r := w.run("watch", "ls", "--json"); r.code != 0 || strings.Count(r.stdout, `"damaged":`) != 2 {
		t.Errorf("watch ls --json: exit %d, %s; want both marked damaged", r.code, r.stdout)
	}
	for id, name := range damage {
		if r := w.run("watch", "show", id); r.code != 0 || !strings.Contains(r.stdout, "damaged") || !strings.Contains(r.stdout, name) {
			t.Errorf("watch show %s: exit %d %q %s", id, r.code, r.stdout, r.stderr)
		}
		if r := w.run("watch", "pause", id); r.code != 0 {
			t.Errorf("watch pause %s: exit %d %s; want success (a damaged watcher is stopped)", id, r.code, r.stderr)
		}
		if r := w.run("watch", "resume", id); r.code == 0 || !strings.Contains(r.stderr, "damaged") || !strings.Contains(r.stderr, "hangdog watch rm "+id) {
			t.Errorf("watch resume %s: exit %d %s; want a refusal that says to remove it", id, r.code, r.stderr)
		}
		if r := w.run("watch", "rm", id); r.code != 0 {
			t.Errorf("watch rm %s: exit %d %s", id, r.code, r.stderr)
		}
		if _, err := os.Stat(filepath.Join(w.home, "watchers", id)); !os.IsNotExist(err) {
			t.Errorf("watcher %s is still on disk after rm: %v", id, err)
		}
	}
	if r := w.run("watch", "ls"); strings.Contains(r.stdout, "damaged") {
		t.Errorf("after rm, watch ls still lists a damaged watcher:\n%s", r.stdout)
	}
}
