package cchook

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/internal/safefile"
	"github.com/hangdog/hangdog/internal/termtext"
	"github.com/hangdog/hangdog/taskctl"
)

// A supervised Bash call: `hangdog run --claude-code` runs the command
// the PreToolUse hook rewrote and prints what Claude Code's own Bash tool
// would have shown — the whole output as plain text, head first, so Claude
// Code keeps its own preview and file of a large one — with the session's
// news above it and, when the call is moved to the background, what to do
// next below it.

// hookDefaults is the watchdog cadence of a supervised call, for each key
// the user's settings leave at its default: a prompt comes back in about
// 5 s and a server in about 10 s, where the default (first look after
// 2 min) would run into the call's --detach-after.
var hookDefaults = map[string]string{"watchdog.firstCheckMin": "0.1", "watchdog.intervalMin": "0.05"}

// plainEnv is set on a supervised call with the agent profile: colour and
// cursor codes have no place in what a model reads.
var plainEnv = []string{"TERM=dumb", "NO_COLOR=1", "CLICOLOR=0"}

// RunSettings are the settings of a supervised call: $HANGDOG_HOOK_SET as
// given (sets, over the user's own), else hookDefaults (below them).
func RunSettings(getenv func(string) string) (sets []string, defaults map[string]string) {
	if v, ok := lookup(getenv, envHookSet); ok {
		return strings.Fields(v), nil
	}
	return nil, hookDefaults
}

func lookup(getenv func(string) string, name string) (string, bool) {
	if getenv == nil {
		return os.LookupEnv(name)
	}
	v := getenv(name)
	return v, v != ""
}

// Call is one supervised Bash call of a Claude Code session.
type Call struct {
	Reg     *bgtasks.Registry
	Owner   string // the session, claude-KEY
	CwdFile string // where the command's shell says where it ended; "" none
	Out     io.Writer
	Command string

	s     *session
	plain *termtext.Writer
	text  *lastByte // what plain wrote, so the notice starts on a line of its own
	start string    // the directory the call started in, links resolved
}

// NewCall checks the session and prepares the call.
func NewCall(reg *bgtasks.Registry, owner, cwdFile, command string, out io.Writer) (*Call, error) {
	key, ok := strings.CutPrefix(owner, "claude-")
	if !ok || key == "" || Key(key) != key {
		return nil, fmt.Errorf("--claude-code needs --session claude-KEY, as the hook writes it; got %q", owner)
	}
	s, err := openSession(reg, key)
	if err != nil {
		return nil, err
	}
	c := &Call{Reg: reg, Owner: owner, CwdFile: cwdFile, Out: out, Command: command, s: s, text: &lastByte{w: out}}
	c.plain = termtext.NewWriter(c.text)
	if wd, err := os.Getwd(); err == nil {
		if r, err := filepath.EvalSymlinks(wd); err == nil {
			c.start = r
		}
	}
	return c, nil
}

// bashEnv is the BASH_ENV file of supervised calls, the same for all: bash
// -c reads it before the command, so the command runs (and is recorded) as
// written while its shell reports where it ended from an EXIT trap. The
// user's own BASH_ENV is read first; the exported guard keeps scripts the
// command runs from setting the trap again.
const bashEnv = `if [ -n "${HANGDOG_USER_BASH_ENV-}" ]; then . "$HANGDOG_USER_BASH_ENV"; fi
if [ -z "${HANGDOG_CWD_TRAP-}" ]; then export HANGDOG_CWD_TRAP=1
  __hangdog_cwd=${HANGDOG_CWD_FILE-}
  trap '{ [ -n "$__hangdog_cwd" ] && pwd -P >|"$__hangdog_cwd"; } 2>/dev/null' EXIT
fi
unset HANGDOG_CWD_FILE
`

// Env is the command's environment: the session it belongs to (a
// `hangdog watch create` it runs is the session's too), the cwd trap, and
// plain text unless the agent profile is off.
func (c *Call) Env(environ []string, getenv func(string) string) ([]string, error) {
	out := make([]string, 0, len(environ)+8)
	user := ""
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, "BASH_ENV="); ok {
			user = v
			continue
		}
		out = append(out, kv)
	}
	out = append(out, "HANGDOG_SESSION="+c.Owner)
	if c.CwdFile != "" {
		f := filepath.Join(c.Reg.Home(), sessionsDir, "bashenv")
		if b, err := os.ReadFile(f); err != nil || string(b) != bashEnv {
			if err := safefile.Write(f, []byte(bashEnv)); err != nil {
				return nil, fmt.Errorf("claude session shell: %w", err)
			}
		}
		out = append(out, "BASH_ENV="+f, "HANGDOG_CWD_FILE="+c.CwdFile)
		if user != "" {
			out = append(out, "HANGDOG_USER_BASH_ENV="+user)
		}
	} else if user != "" {
		out = append(out, "BASH_ENV="+user)
	}
	switch strings.ToLower(getenv(envProfile)) {
	case "off", "0", "false", "no":
	default:
		out = setEnv(out, plainEnv)
	}
	return out, nil
}

// setEnv sets each NAME=VALUE of vars in env, replacing what env has.
func setEnv(env, vars []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		keep := true
		for _, v := range vars {
			if strings.HasPrefix(v, name+"=") {
				keep = false
			}
		}
		if keep {
			out = append(out, kv)
		}
	}
	return append(out, vars...)
}

// TellNews writes the session's news above the output, once.
func (c *Call) TellNews() error {
	return c.s.takeNews(func(evs []bgtasks.Event) error {
		_, err := io.WriteString(c.Out, newsBlock(evs)+"\n")
		return err
	})
}

// Output passes on output of the command as plain text.
func (c *Call) Output(p []byte) error {
	_, err := c.plain.Write(p)
	return err
}

// modelCalls are the commands the model types on a task in Claude Code's
// shell: the CLI's, but a log is read, not followed (a follow never ends).
type modelCalls struct{ taskctl.CLICalls }

func (modelCalls) Logs(id string) string { return fmt.Sprintf("`hangdog bg logs %s`", id) }

// Present finishes the output and says how the call came back; it returns
// the exit status for Claude Code's shell.
func (c *Call) Present(o taskctl.Outcome) int {
	c.plain.Close()
	if c.text.last != 0 && c.text.last != '\n' {
		// An unfinished last line (a prompt): the notice goes below it.
		io.WriteString(c.Out, "\n")
	}
	c.settleCwd()
	switch o.Kind {
	case taskctl.Failed:
		fmt.Fprintf(c.Out, "hangdog: could not start the command: %s\n", plain(o.Message, 2000))
		return 127
	case taskctl.Lost:
		fmt.Fprintf(c.Out, "hangdog: task %s was lost: %v; its output: hangdog bg logs %s\n", o.TaskID, o.Err, o.TaskID)
		return 1
	case taskctl.Detached:
		d := o.Detach
		reason := plain(d.Reason, lineWidth)
		kind := waitKindOf(d.Wait, reason)
		if err := c.s.addTask(d.TaskID, kind, c.Command); err != nil {
			fmt.Fprintf(c.Out, "hangdog: %v\n", err)
		}
		took := taskctl.Spoken.Format(taskctl.RoundDuration(time.Duration(d.ElapsedMS) * time.Millisecond))
		msg := fmt.Sprintf("hangdog: task %s was moved to the background after %s (%s). %s", d.TaskID, took, strings.TrimRight(reason, "."),
			taskctl.NextSteps(d.Wait, d.TaskID, modelCalls{}))
		if kind == kindTime {
			msg += " You will be told when it ends."
		}
		fmt.Fprintln(c.Out, msg)
		if d.ExitCode != nil {
			return *d.ExitCode
		}
		return 0
	}
	r := o.Result
	if r.State == bgtasks.Killed {
		why := plain(r.Reason, lineWidth)
		if why == "" {
			why = "killed"
		}
		fmt.Fprintf(c.Out, "hangdog: %s\n", why)
	}
	return r.ExitCode
}

// settleCwd removes the cwd file of a call whose shell ended where it
// started: Claude Code's shell then has nowhere to move, and reads nothing.
func (c *Call) settleCwd() {
	if c.CwdFile == "" {
		return
	}
	b, err := os.ReadFile(c.CwdFile)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err == nil && c.start != "" && string(bytes.TrimRight(b, "\n")) != c.start {
		return // moved: the tail of the rewritten command takes it
	}
	os.Remove(c.CwdFile)
}

// lastByte passes writes on and remembers the last byte written.
type lastByte struct {
	w    io.Writer
	last byte
}

func (l *lastByte) Write(p []byte) (int, error) {
	n, err := l.w.Write(p)
	if n > 0 {
		l.last = p[n-1]
	}
	return n, err
}
