//go:build linux

package mcpserver

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// A session's shell files go in memory when the machine has a file system
// there, whatever the temporary directory is: on a disk, every call gave
// the cwd slot's block back and took it again. Its directory stays the
// user's alone, and goes with the session.
func TestShellStateLivesInMemoryAndPrivate(t *testing.T) {
	if !inMemory("/dev/shm") || unix.Access("/dev/shm", unix.W_OK|unix.X_OK) != nil {
		t.Skip("no writable /dev/shm in memory here")
	}
	disk := t.TempDir()
	if inMemory(disk) {
		t.Skip("the test's temporary directory is in memory already")
	}
	t.Setenv("TMPDIR", disk)
	t.Setenv("XDG_RUNTIME_DIR", disk) // not in memory: passed over
	st, err := newShellState(false)
	if err != nil {
		t.Fatal(err)
	}
	if !inMemory(st.dir) {
		t.Errorf("session shell state in %s, on disk; want it in memory (/dev/shm)", st.dir)
	}
	if filepath.Dir(st.dir) != "/dev/shm" {
		t.Errorf("session shell state in %s; want it under /dev/shm", st.dir)
	}
	fi, err := os.Stat(st.dir)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o700 {
		t.Errorf("session shell state directory has mode %v; want 0700", perm)
	}
	env, call, err := st.prepare(os.Environ())
	if err != nil {
		t.Fatal(err)
	}
	if call.cwdFile == "" || filepath.Dir(call.cwdFile) != st.dir || len(env) == 0 {
		t.Errorf("call's cwd file %q is not in the session's directory %s", call.cwdFile, st.dir)
	}
	st.close()
	if _, err := os.Stat(st.dir); !os.IsNotExist(err) {
		t.Errorf("session shell state %s left behind after close: %v", st.dir, err)
	}
}

// A temporary directory already in memory is the one used: the user chose it.
func TestShellStateKeepsATemporaryDirectoryInMemory(t *testing.T) {
	if !inMemory("/dev/shm") {
		t.Skip("no /dev/shm in memory here")
	}
	mem, err := os.MkdirTemp("/dev/shm", "hangdog-test-")
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { os.RemoveAll(mem) })
	t.Setenv("TMPDIR", mem)
	if got := shellParent(); got != mem {
		t.Errorf("shellParent() = %s; want the temporary directory %s, in memory", got, mem)
	}
}
