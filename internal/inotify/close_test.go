package inotify

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// A watched directory renamed away makes fsnotify's reader send an error
// under its lock; with nobody reading, fsnotify's own Close never returns.
// Close returns.
func TestCloseWithAnUnreadErrorReturns(t *testing.T) {
	root := t.TempDir()
	w, err := fsnotify.NewWatcher()
	if err != nil {
		t.Skip("no inotify:", err)
	}
	if err := w.Add(root); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "w1")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := w.Add(dir); err != nil {
		t.Fatal(err)
	}
	// Events are read, errors not (as a loop that only wants to know
	// "something changed" may do).
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-w.Events:
			case <-stop:
				return
			}
		}
	}()
	// As watch.Store.Delete does: rename the directory away, then remove
	// it. By the time the reader sees IN_MOVE_SELF the kernel has dropped
	// the watch, so fsnotify's own removal fails and it sends that error.
	gone := filepath.Join(root, ".gone")
	if err := os.Rename(dir, gone); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // the reader is now blocked sending
	done := make(chan error, 1)
	go func() { done <- Close(w) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return")
	}
}
