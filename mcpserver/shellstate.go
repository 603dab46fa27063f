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
type shellState struct {
	dir     string // this session's files, removed when it ends
	exports bool

	mu    sync.Mutex
	n     int
	cwd   string // where the last call that ended left its shell; "" none yet
	saved string // the export file of that call
}

func newShellState(exports bool) (*shellState, error) {
	dir, err := os.MkdirTemp("", "hangdog-mcp-shell-")
	if err != nil {
		return nil, fmt.Errorf("session shell state: %w", err)
	}
	return &shellState{dir: dir, exports: exports}, nil
}

func (st *shellState) close() { os.RemoveAll(st.dir) }

// shellCall is one call's files.
type shellCall struct {
	st                   *shellState
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

// prepare writes the BASH_ENV file of a new call and returns the
// environment to run it with.
func (st *shellState) prepare(env []string) ([]string, *shellCall, error) {
	st.mu.Lock()
	st.n++
	n, saved := st.n, st.saved
	st.mu.Unlock()
	c := &shellCall{st: st, cwdFile: filepath.Join(st.dir, fmt.Sprintf("%d.cwd", n))}
	var b strings.Builder
	user := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "BASH_ENV="); ok {
			user = v
		}
	}
	if user != "" {
		fmt.Fprintf(&b, ". %s\n", taskctl.ShellJoin([]string{user}))
	}
	b.WriteString("if [ -z \"${HANGDOG_SHELL_TRAP-}\" ]; then export HANGDOG_SHELL_TRAP=1\n")
	save := ""
	if st.exports {
		c.exportsFile = filepath.Join(st.dir, fmt.Sprintf("%d.env", n))
		if saved != "" {
			fmt.Fprintf(&b, "  . %s 2>/dev/null\n", taskctl.ShellJoin([]string{saved}))
		}
		// What bash sets by itself, and hangdog's own, are not carried.
		save = fmt.Sprintf("; export -p | grep -Ev '^declare -x (PWD|OLDPWD|SHLVL|_|BASH_ENV|HANGDOG_SHELL_TRAP)=' >|%s", taskctl.ShellJoin([]string{c.exportsFile}))
	}
	trap := fmt.Sprintf("{ pwd -P >|%s%s; } 2>/dev/null", taskctl.ShellJoin([]string{c.cwdFile}), save)
	fmt.Fprintf(&b, "  trap %s EXIT\nfi\n", taskctl.ShellJoin([]string{trap}))
	envFile := filepath.Join(st.dir, fmt.Sprintf("%d.bashenv", n))
	if err := os.WriteFile(envFile, []byte(b.String()), 0o600); err != nil {
		return nil, nil, fmt.Errorf("session shell state: %w", err)
	}
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "BASH_ENV=") {
			out = append(out, kv)
		}
	}
	return append(out, "BASH_ENV="+envFile), c, nil
}

// ended takes what the call's shell left when its command ended. A call
// moved to the background is not taken: its shell ends later, and the
// session's directory changing under a later call would surprise.
func (c *shellCall) ended() error {
	if c == nil {
		return nil
	}
	b, err := os.ReadFile(c.cwdFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // killed, or exec'd away from bash: nothing to carry
	}
	if err != nil {
		return fmt.Errorf("session shell state: %w", err)
	}
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
