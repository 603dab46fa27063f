package taskctl

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/jev"
	"github.com/hangdog/hangdog/settings"
)

// Request is what a front end knows about a command it is asked to run.
// Resolve turns it into the Spec a supervisor runs.
type Request struct {
	// Command is a shell string, run with bash -c. Argv, when it has more
	// than one element, is a program and its arguments instead, each kept
	// whole; one element is a shell string, as `hangdog run 'a && b'`.
	Command string
	Argv    []string
	// Cwd is the directory to run in; "" is this process's.
	Cwd  string
	Mode bgtasks.Mode // "" is Foreground
	// Sets overrides settings for this run only (`--set KEY=VALUE`).
	Sets map[string]string
	// Defaults replace built-in defaults for this run, below the user's
	// files, environment and Sets (settings.Options.Defaults).
	Defaults map[string]string
	// UserFile is the user settings file; "" is settings.UserFile().
	UserFile string
	// Interactive says a person is at the caller's terminal; Rows and Cols
	// are its size (0: the supervisor's 24×80).
	Interactive bool
	Rows, Cols  uint16
	// Env is the command's environment; nil is this process's. A caller
	// nobody is at (not Interactive) gets the agent profile on top of it,
	// unless tasks.agentProfile is off (Spec.AgentProfile).
	Env []string
	// HomeWide: the task belongs to the home, not to a project or a
	// session (the watchers' runner): it has neither, so every scope
	// lists it and no session's end kills it.
	HomeWide bool
	// Owner is the session starting the task: an MCP session, a hook's
	// session, `--session NAME`; "" for nobody. It decides who sees the
	// task and hears of its end (bgtasks.Scope).
	Owner string
	// Warn is told what is wrong with the settings but does not stop the
	// command (a bad entry left out, a remote model that cannot be used),
	// one message at a time; nil writes them to stderr.
	Warn func(msg string)
}

// Resolve checks a request and resolves it against the settings in force
// for its directory (user file, project files, environment, Sets), before
// anything is registered, so bad input leaves no task behind. Every front
// end starts its tasks from what this returns.
func Resolve(req Request) (Spec, error) {
	var spec Spec
	args := req.Argv
	if len(args) == 0 {
		args = []string{req.Command}
	}
	switch {
	case len(args) == 1 && strings.TrimSpace(args[0]) == "":
		return spec, errors.New("nothing to run: give a command, e.g. `hangdog run -- make test` or `hangdog run 'make && make test'`")
	case len(args) == 1:
		spec.Shell = true
		spec.Command = args[0]
	default:
		spec.Argv = args
		spec.Command = ShellJoin(args)
		if _, err := exec.LookPath(args[0]); err != nil {
			return spec, fmt.Errorf("%s: command not found; check the name or your PATH (to run a shell string, pass it as one argument)", args[0])
		}
	}
	cwd := req.Cwd
	if cwd == "" {
		var err error
		if cwd, err = os.Getwd(); err != nil {
			return spec, fmt.Errorf("find the current directory: %w", err)
		}
	}
	abs, err := filepath.Abs(cwd)
	if err != nil {
		return spec, fmt.Errorf("--cwd %s: %w", cwd, err)
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return spec, fmt.Errorf("--cwd %s: no such directory; give an existing directory", cwd)
	}
	spec.Cwd = abs
	flags := req.Sets
	if flags == nil {
		flags = map[string]string{}
	}
	// A bad entry in a file or the environment is left out with a warning,
	// never a reason not to run: otherwise one bad key in a cloned
	// repository's .hangdog.yaml would stop every command, an agent's bash
	// tool included. A bad Sets entry is still refused.
	st, err := settings.Load(settings.Options{Dir: abs, Flags: flags, Defaults: req.Defaults, UserFile: req.UserFile, KeepGoing: true})
	if err != nil {
		return spec, err
	}
	warn := req.Warn
	if warn == nil {
		warn = func(msg string) { fmt.Fprintln(os.Stderr, "hangdog: warning:", msg) }
	}
	for _, e := range st.Warnings() {
		warn(fmt.Sprintf("%v\n  that setting is left out and the command runs with the others; fix or remove it (`hangdog config list` shows what applies)", e))
	}
	if msg := remoteWarning(st); msg != "" {
		warn(msg)
	}
	spec.Watchdog = st.Watchdog()
	spec.KeepEnded = st.KeepEnded()
	spec.ForwardEvents = st.Events().Sink != ""
	spec.Env = req.Env
	if spec.Env == nil {
		spec.Env = os.Environ()
	}
	// The supervisor applies the profile to the environment it was started
	// with (a run's is started before the settings are read).
	spec.AgentProfile = !req.Interactive && st.AgentProfile()
	spec.Owner = req.Owner
	spec.Project = bgtasks.ProjectOf(abs)
	if req.HomeWide {
		spec.Owner, spec.Project = "", ""
	}
	spec.Mode = req.Mode
	if spec.Mode == "" {
		spec.Mode = bgtasks.Foreground
	}
	spec.Interactive = req.Interactive
	spec.Rows, spec.Cols = req.Rows, req.Cols
	return spec, nil
}

// remoteWarning says why the remote decision model the settings ask for
// cannot be used, or "" when it can (or none is asked for).
func remoteWarning(st *settings.Settings) string {
	dm := st.Watchdog().DecisionModel
	_, _, err := jev.ResolveRemote(dm.Source, jev.RemoteConfig{
		Backend: dm.Backend, URL: dm.URL, Model: dm.Model, APIKeyEnv: dm.APIKeyEnv, Timeout: dm.Timeout(),
	}, os.Getenv)
	if err != nil {
		return fmt.Sprintf("decision model: %v\n  this command runs with the local judge only", err)
	}
	return ""
}

// ParseSets reads `--set KEY=VALUE` overrides.
func ParseSets(sets []string) (map[string]string, error) {
	m := map[string]string{}
	for _, kv := range sets {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--set %q: expected KEY=VALUE, e.g. --set watchdog.action=kill", kv)
		}
		m[k] = v
	}
	return m, nil
}

// ShellJoin renders argv as a shell would need it typed, for display.
func ShellJoin(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && strings.IndexFunc(a, func(r rune) bool { return !isShellSafe(r) }) < 0 {
			parts[i] = a
			continue
		}
		parts[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(parts, " ")
}

func isShellSafe(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r)
}
