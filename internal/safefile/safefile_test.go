package safefile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestWriteReplacesPrivatelyAndLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	for _, write := range []func(string, []byte) error{Write, WriteDurable} {
		if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := write(path, []byte("new")); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		fi, _ := os.Stat(path)
		if err != nil || string(b) != "new" || fi.Mode().Perm() != 0o600 {
			t.Fatalf("after the write: %q %v, mode %v; want new, 0600", b, err, fi.Mode().Perm())
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("files left: %v", ents)
	}
	// A write into a missing directory fails and leaves nothing.
	if err := Write(filepath.Join(dir, "no", "x"), []byte("x")); err == nil {
		t.Fatal("a write into a missing directory succeeded")
	}
}

func TestLocksExcludeOtherOpenFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	a, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := Lock(a); err != nil {
		t.Fatal(err)
	}
	if ok, err := TryLock(b); ok || err != nil {
		t.Fatalf("TryLock while another file holds it = %v, %v", ok, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := LockContext(ctx, b); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("LockContext while held = %v, want the deadline", err)
	}
	inside := false
	done := make(chan error, 1)
	go func() { done <- WithLock(path, func() error { inside = true; return nil }) }()
	select {
	case err := <-done:
		t.Fatalf("WithLock ran while the lock was held (%v)", err)
	case <-time.After(100 * time.Millisecond):
	}
	Unlock(a)
	if err := <-done; err != nil || !inside {
		t.Fatalf("WithLock after the unlock = %v, ran %v", err, inside)
	}
}
