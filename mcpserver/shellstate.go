//go:build linux

package mcpserver

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/hangdog/hangdog/internal/safefile"
	"github.com/hangdog/hangdog/taskctl"
)

// shellState carries a session's shell from one bash call to the next, as
// a person's terminal (and Claude Code's own Bash tool) does: the directory
// a call ended in is the next call's default cwd, and with CarryExports the
// variables it exported are set again.
//
// The command itself is never rewritten (hangdog records and shows it as
// written, and a wrapper would change what `$?`, `exit` and `trap` mean):
// bash -c reads $BASH_ENV before the command, and the file it names sets an
// EXIT trap that writes `pwd -P` (and `export -p`) to files of this call.
// The shell's /proc/PID/cwd is gone by the time its end is reported, so it
// has to say where it was itself. An exported guard keeps the scripts the
// command runs from setting the trap again; a BASH_ENV of the user's own is
// still read first.
//
// Creating a file costs 0.2-0.8 ms on a filesystem where files were just
// deleted (README, Benchmarks), and a quick call is a few ms, so a call
// creates none: the BASH_ENV file is the session's, written once, and each
// call's own paths reach it in variables it reads and unsets before the
// command runs; a call writes its cwd into a slot file that an earlier call
// of the session left empty (truncated), not into a new one. The files go
// in memory where the machine has a file system there (shellParent): on a
// disk, emptying a slot and the shell writing it again gave blocks back and
// took them anew on every call (0.3-2 ms of a call on the ext4 VM this was
// measured on, docs/benchmarks.md).
type shellState struct {
	dir     string // this session's files, removed when it ends
	exports bool

	mu      sync.Mutex
	n       int
	cwd     string // where the last call that ended left its shell; "" none yet
	saved   string // the export file of that call
	free    []int  // cwd slots whose file exists and is empty
	slots   int    // slots made so far
	envFile string // the BASH_ENV file, once written
	envUser string // the user's own BASH_ENV it sources
}

// The variables that give a call's paths to the session's BASH_ENV file.
// It reads them into shell variables and unsets them, so the command does
// not see them.
const (
	cwdVar  = "HANGDOG_SHELL_CWD"  // where the trap writes pwd -P
	saveVar = "HANGDOG_SHELL_SAVE" // where it writes export -p (CarryExports)
	loadVar = "HANGDOG_SHELL_LOAD" // the exports to set first (CarryExports)
)

func newShellState(exports bool) (*shellState, error) {
	dir, err := os.MkdirTemp(shellParent(), "hangdog-mcp-shell-")
	if err != nil {
		// A sandbox may refuse what it lets access(2) pass; the disk will do.
		dir, err = os.MkdirTemp("", "hangdog-mcp-shell-")
	}
	if err != nil {
		return nil, fmt.Errorf("session shell state: %w", err)
	}
	return &shellState{dir: dir, exports: exports}, nil
}

// shellParent is where a session's shell files go: the temporary directory
// when it is in memory, else the user's runtime directory
// ($XDG_RUNTIME_DIR, private to the user), else /dev/shm, else the
// temporary directory on disk. The session's own directory is private
// (MkdirTemp makes it 0700) wherever it is, and holds a few bytes a call.
func shellParent() string {
	tmp := os.TempDir()
	for _, dir := range []string{tmp, os.Getenv("XDG_RUNTIME_DIR"), "/dev/shm"} {
		if dir != "" && inMemory(dir) && unix.Access(dir, unix.W_OK|unix.X_OK) == nil {
			return dir
		}
	}
	return tmp
}

func inMemory(dir string) bool {
	var fs unix.Statfs_t
	return unix.Statfs(dir, &fs) == nil && (fs.Type == unix.TMPFS_MAGIC || fs.Type == unix.RAMFS_MAGIC)
}

func (st *shellState) close() { os.RemoveAll(st.dir) }

// shellCall is one call's files.
type shellCall struct {
	st                   *shellState
	slot                 int
	cwdFile, exportsFile string
}

// defaultCwd is the directory a call without cwd runs in ("" the server's),
// and a warning when the one the session was in is gone.
func (st *shellState) defaultCwd() (string, string) {
	st.mu.Lock()
	cwd := st.cwd
	st.mu.Unlock()
	if cwd == "" {
		return "", ""
	}
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		return "", fmt.Sprintf("the directory the previous call ended in (%s) is gone; running in the server's directory", cwd)
	}
	return cwd, ""
}

// prepare returns the environment to run a new call with, writing the
// session's BASH_ENV file on its first call.
func (st *shellState) prepare(env []string) ([]string, *shellCall, error) {
	user := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "BASH_ENV="); ok {
			user = v
		}
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.envFile == "" || st.envUser != user {
		if err := st.writeEnvFile(user); err != nil {
			return nil, nil, err
		}
	}
	c := &shellCall{st: st}
	if n := len(st.free); n > 0 {
		c.slot = st.free[n-1]
		st.free = st.free[:n-1]
	} else {
		st.slots++
		c.slot = st.slots
	}
	c.cwdFile = filepath.Join(st.dir, fmt.Sprintf("%d.cwd", c.slot))
	out := make([]string, 0, len(env)+4)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "BASH_ENV=") {
			out = append(out, kv)
		}
	}
	out = append(out, "BASH_ENV="+st.envFile, cwdVar+"="+c.cwdFile)
	if st.exports {
		// Export files stay one per call: a later call loads the one its
		// predecessor wrote while a detached call may still write its own.
		st.n++
		c.exportsFile = filepath.Join(st.dir, fmt.Sprintf("%d.env", st.n))
		out = append(out, saveVar+"="+c.exportsFile)
		if st.saved != "" {
			out = append(out, loadVar+"="+st.saved)
		}
	}
	return out, c, nil
}

// writeEnvFile writes the session's BASH_ENV file, which sources user's
// own first. Called with st.mu held.
func (st *shellState) writeEnvFile(user string) error {
	var b strings.Builder
	if user != "" {
		fmt.Fprintf(&b, ". %s\n", taskctl.ShellJoin([]string{user}))
	}
	b.WriteString("if [ -z \"${HANGDOG_SHELL_TRAP-}\" ]; then export HANGDOG_SHELL_TRAP=1\n")
	fmt.Fprintf(&b, "  __hangdog_cwd=${%s-}\n", cwdVar)
	save := ""
	if st.exports {
		fmt.Fprintf(&b, "  __hangdog_save=${%s-}\n", saveVar)
		fmt.Fprintf(&b, "  if [ -n \"${%s-}\" ]; then . \"$%s\" 2>/dev/null; fi\n", loadVar, loadVar)
		// What bash sets by itself, and hangdog's own, are not carried.
		save = "; export -p | grep -Ev '^declare -x (PWD|OLDPWD|SHLVL|_|BASH_ENV|HANGDOG_SHELL_TRAP)=' >|\"$__hangdog_save\""
	}
	fmt.Fprintf(&b, "  unset %s %s %s\n", cwdVar, saveVar, loadVar)
	trap := "{ pwd -P >|\"$__hangdog_cwd\"" + save + "; } 2>/dev/null"
	fmt.Fprintf(&b, "  trap %s EXIT\nfi\n", taskctl.ShellJoin([]string{trap}))
	f := filepath.Join(st.dir, "bashenv")
	if err := safefile.Write(f, []byte(b.String())); err != nil {
		return fmt.Errorf("session shell state: %w", err)
	}
	st.envFile, st.envUser = f, user
	return nil
}

// ended takes what the call's shell left when its command ended and gives
// its slot back, emptied. A call moved to the background is not taken, and
// keeps its slot: its shell ends later, and the session's directory
// changing under a later call would surprise.
func (c *shellCall) ended() error {
	if c == nil {
		return nil
	}
	b, err := os.ReadFile(c.cwdFile)
	if errors.Is(err, fs.ErrNotExist) {
		c.release()
		return nil // killed, or exec'd away from bash: nothing to carry
	}
	if err != nil {
		return fmt.Errorf("session shell state: %w", err)
	}
	if len(b) > 0 {
		// Emptied, not removed: the next call writes into it without
		// creating a file.
		if err := os.Truncate(c.cwdFile, 0); err != nil {
			return fmt.Errorf("session shell state: %w", err)
		}
	}
	c.release()
	cwd := strings.TrimRight(string(b), "\n")
	if !filepath.IsAbs(cwd) {
		return nil
	}
	c.st.mu.Lock()
	defer c.st.mu.Unlock()
	c.st.cwd = cwd
	if c.exportsFile != "" {
		if _, err := os.Stat(c.exportsFile); err == nil {
			c.st.saved = c.exportsFile
		}
	}
	return nil
}

func (c *shellCall) release() {
	c.st.mu.Lock()
	c.st.free = append(c.st.free, c.slot)
	c.st.mu.Unlock()
}
