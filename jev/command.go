package jev

import (
	"path"
	"strings"
	"time"

	"github.com/hangdog/hangdog/internal/termtext"
	"github.com/hangdog/hangdog/jev/internal/shell"
)

// invocation is one simple command as it will run, with the wrappers that
// only change how it runs (sudo, env, timeout, nice, npx, bash -c …) peeled
// off and remembered.
type invocation struct {
	argv    []string // the program that does the work and its arguments
	assigns []string // NAME=value from the shell line and from `env`
	// timeout is the tightest `timeout` wrapper, kill-after included; 0 if none.
	timeout time.Duration
	// sudoPrompt: run through sudo without -n, which may ask for a password.
	sudoPrompt bool
	// script is the parsed SCRIPT of `bash -c SCRIPT` (argv is then the shell).
	script *shell.List

	stdinTTY, stdoutTTY bool // input and output are the terminal
}

// name is the program's base name, normalised: python3.12 → python.
func (inv invocation) name() string {
	if len(inv.argv) == 0 {
		return ""
	}
	return commandName(inv.argv[0])
}

func (inv invocation) args() []string {
	if len(inv.argv) < 2 {
		return nil
	}
	return inv.argv[1:]
}

// assigned returns the value of NAME from the invocation's assignments.
func (inv invocation) assigned(name string) (string, bool) {
	for i := len(inv.assigns) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(inv.assigns[i], name+"="); ok {
			return v, true
		}
	}
	return "", false
}

// display is the command as a person would recognise it in evidence: the
// program and its first few words, kept short.
func (inv invocation) display() string {
	n := min(len(inv.argv), 4)
	words := make([]string, n)
	for i, w := range inv.argv[:n] {
		if i == 0 {
			w = path.Base(w)
		}
		if strings.ContainsAny(w, " \t") {
			w = "'" + w + "'"
		}
		words[i] = w
	}
	s := strings.Join(words, " ")
	if len(inv.argv) > n {
		s += " …"
	}
	return termtext.Clip(s, 60)
}

func commandName(argv0 string) string {
	name := path.Base(argv0)
	for _, family := range [...]string{"python", "pip", "pypy", "ruby", "node", "php", "perl"} {
		if rest, ok := strings.CutPrefix(name, family); ok && rest != "" && strings.Trim(rest, "0123456789.") == "" {
			return family
		}
	}
	return name
}

// maxUnwrap bounds wrapper and `bash -c` nesting.
const maxUnwrap = 16

// unwrap peels wrappers off a simple command.
func unwrap(s *shell.Simple, stdinTTY, stdoutTTY bool) invocation {
	inv := invocation{argv: s.Args, assigns: append([]string(nil), s.Assigns...), stdinTTY: stdinTTY, stdoutTTY: stdoutTTY}
	for range maxUnwrap {
		if len(inv.argv) == 0 {
			return inv
		}
		rest, ok := peel(&inv)
		if !ok {
			return inv
		}
		if len(rest) == 0 {
			return inv // a wrapper with nothing to run: judge the wrapper itself
		}
		inv.argv = rest
	}
	return inv
}

// peel removes one wrapper from inv.argv, returning what it runs. ok is false
// when argv[0] is not a wrapper.
func peel(inv *invocation) (rest []string, ok bool) {
	args := inv.argv[1:]
	switch inv.name() {
	case "sudo", "doas":
		rest = afterOptions(args, "-u -g -h -p -C -D -r -t -U -T --user --group --host --prompt --close-from --chdir --role --type --other-user --command-timeout")
		opts := args[:len(args)-len(rest)]
		if hasFlag(opts, "-e --edit") {
			return nil, false // sudoedit: an editor, judged as sudo itself
		}
		if !hasShort(opts, "n") && !hasFlag(opts, "--non-interactive") {
			inv.sudoPrompt = true
		}
		return rest, true
	case "env":
		rest = afterOptions(args, "-u -C -S --unset --chdir --split-string")
		for len(rest) > 0 && isAssignment(rest[0]) {
			inv.assigns = append(inv.assigns, rest[0])
			rest = rest[1:]
		}
		return rest, true
	case "cross-env":
		rest = args
		for len(rest) > 0 && isAssignment(rest[0]) {
			inv.assigns = append(inv.assigns, rest[0])
			rest = rest[1:]
		}
		return rest, true
	case "timeout":
		return peelTimeout(inv, args), true
	case "nice":
		return afterOptions(args, "-n --adjustment"), true
	case "ionice":
		if hasFlag(args, "-p --pid -P --pgid -u --uid") {
			return nil, false
		}
		return afterOptions(args, "-c -n --class --classdata"), true
	case "stdbuf":
		return afterOptions(args, "-i -o -e --input --output --error"), true
	case "time":
		return afterOptions(args, "-f -o --format --output"), true
	case "exec":
		return afterOptions(args, "-a"), true
	case "command", "builtin":
		if hasFlag(args, "-v -V") {
			return nil, false // a lookup, not a run
		}
		return afterOptions(args, ""), true
	case "nohup", "setsid", "unbuffer", "chronic", "caffeinate", "catchsegv":
		return afterOptions(args, ""), true
	case "xvfb-run":
		return afterOptions(args, "-n -s -f -e -p --server-num --server-args --auth-file --error-file --xauth-protocol"), true
	case "taskset":
		if hasFlag(args, "-p --pid") {
			return nil, false
		}
		return dropFirst(afterOptions(args, "")), true
	case "flock":
		rest = dropFirst(afterOptions(args, "-w -E --timeout --wait --conflict-exit-code"))
		if len(rest) >= 2 && (rest[0] == "-c" || rest[0] == "--command") {
			return shellScript(inv, rest[1]), true
		}
		return rest, true
	case "npx", "bunx", "pnpx", "uvx":
		if i := indexOf(args, "-c", "--call"); i >= 0 && i+1 < len(args) {
			return shellScript(inv, args[i+1]), true
		}
		return afterOptions(args, "-p --package --from --with --python"), true
	case "pnpm", "yarn", "npm":
		if len(args) > 0 && inWords("exec dlx x", args[0]) {
			return afterOptions(args[1:], "-p --package -c --call"), true
		}
	case "bun":
		if len(args) > 0 && args[0] == "x" {
			return afterOptions(args[1:], ""), true
		}
	case "uv":
		if len(args) > 0 && args[0] == "run" {
			return afterOptions(args[1:], "--with --python -p --project --directory --env-file --group --extra --package --with-requirements"), true
		}
	case "poetry", "pipenv", "pdm", "hatch", "rye":
		if len(args) > 0 && args[0] == "run" {
			return afterOptions(args[1:], ""), true
		}
	case "bundle":
		if len(args) > 0 && args[0] == "exec" {
			return afterOptions(args[1:], ""), true
		}
	case "dotenv":
		if i := indexOf(args, "--"); i >= 0 {
			return args[i+1:], true
		}
	case "bash", "sh", "zsh", "dash", "ksh", "mksh", "ash":
		for i, a := range args {
			if a == "--" || !strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "+") {
				break
			}
			if a == "-o" || a == "+o" || a == "-O" || a == "+O" {
				continue
			}
			if !strings.HasPrefix(a, "--") && strings.Contains(a, "c") && i+1 < len(args) {
				return shellScript(inv, args[i+1]), true
			}
		}
	}
	return nil, false
}

// shellScript records a `bash -c SCRIPT` and leaves the shell as argv, so
// the script's own commands are judged, not a program named by its text.
func shellScript(inv *invocation, script string) []string {
	l := shell.Parse(script)
	inv.script = &l
	return nil
}

func peelTimeout(inv *invocation, args []string) []string {
	var kill time.Duration
	rest := args
	for len(rest) > 0 && strings.HasPrefix(rest[0], "-") && len(rest[0]) > 1 {
		a := rest[0]
		rest = rest[1:]
		switch {
		case a == "--":
			goto positional
		case a == "-k" || a == "--kill-after":
			if len(rest) > 0 {
				kill, _ = parseDuration(rest[0])
				rest = rest[1:]
			}
		case strings.HasPrefix(a, "--kill-after="):
			kill, _ = parseDuration(strings.TrimPrefix(a, "--kill-after="))
		case strings.HasPrefix(a, "-k"):
			kill, _ = parseDuration(a[2:])
		case a == "-s" || a == "--signal":
			if len(rest) > 0 {
				rest = rest[1:]
			}
		}
	}
positional:
	if len(rest) == 0 {
		return nil
	}
	d, ok := parseDuration(rest[0])
	if !ok {
		return nil
	}
	if d > 0 {
		if total := d + kill; inv.timeout == 0 || total < inv.timeout {
			inv.timeout = total
		}
	}
	return rest[1:]
}

// parseDuration reads a coreutils duration: a non-negative decimal number
// with an optional s, m, h or d suffix.
func parseDuration(s string) (time.Duration, bool) {
	unit := time.Second
	if s != "" {
		switch s[len(s)-1] {
		case 's':
			s = s[:len(s)-1]
		case 'm':
			unit, s = time.Minute, s[:len(s)-1]
		case 'h':
			unit, s = time.Hour, s[:len(s)-1]
		case 'd':
			unit, s = 24*time.Hour, s[:len(s)-1]
		}
	}
	if s == "" || s == "." {
		return 0, false
	}
	var whole, frac, scale float64 = 0, 0, 1
	seenDot := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '.' && !seenDot:
			seenDot = true
		case c >= '0' && c <= '9':
			if seenDot {
				scale /= 10
				frac += float64(c-'0') * scale
			} else {
				whole = whole*10 + float64(c-'0')
			}
		default:
			return 0, false
		}
	}
	v := (whole + frac) * float64(unit)
	if v > float64(100*365*24*time.Hour) {
		v = float64(100 * 365 * 24 * time.Hour)
	}
	return time.Duration(v), true
}

// afterOptions skips leading options (and the values of those in withArg)
// and returns the words from the first operand on.
func afterOptions(args []string, withArg string) []string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return args[i+1:]
		case len(a) > 1 && a[0] == '-':
			if !strings.Contains(a, "=") && inWords(withArg, a) {
				i++
			}
		default:
			return args[i:]
		}
	}
	return nil
}

func dropFirst(xs []string) []string {
	if len(xs) == 0 {
		return nil
	}
	return xs[1:]
}

func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	if !ok || name == "" {
		return false
	}
	for i, c := range name {
		if c != '_' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// part is one invocation in a command line with where it sits.
type part struct {
	inv        invocation
	background bool // after `&`: runs alongside, its input is /dev/null
	loopDepth  int  // inside this many loops
}

// parts lists every invocation in a command line, `bash -c` scripts
// included, in order.
func parts(cmd string) []part {
	var out []part
	w := walker{visit: func(p part) { out = append(out, p) }}
	w.list(shell.Parse(cmd), place{stdinTTY: true, stdoutTTY: true})
	return out
}

// place is where a command sits: what its input and output are, whether it
// runs in the background, inside how many loops, under which timeout.
type place struct {
	stdinTTY, stdoutTTY bool
	background          bool
	loops, depth        int
	timeout             time.Duration
}

type walker struct{ visit func(part) }

func (w walker) list(l shell.List, at place) {
	if at.depth > maxUnwrap {
		return
	}
	for _, pl := range l.Pipelines {
		here := at
		here.background = at.background || pl.Background()
		for i, c := range pl.Commands {
			p := here
			p.stdinTTY = here.stdinTTY && i == 0 && !c.StdinRedirected && !here.background
			p.stdoutTTY = here.stdoutTTY && i == len(pl.Commands)-1 && !c.StdoutRedirected
			w.command(c, p)
		}
	}
}

func (w walker) command(c shell.Command, at place) {
	at.depth++
	switch {
	case c.Simple != nil:
		if len(c.Simple.Args) == 0 {
			return
		}
		inv := unwrap(c.Simple, at.stdinTTY, at.stdoutTTY)
		if at.timeout > 0 && (inv.timeout == 0 || at.timeout < inv.timeout) {
			inv.timeout = at.timeout
		}
		if inv.script != nil {
			at.timeout = inv.timeout
			w.list(*inv.script, at)
			return
		}
		w.visit(part{inv: inv, background: at.background, loopDepth: at.loops})
	case c.Loop != nil:
		at.loops++
		w.list(c.Loop.Cond, at)
		w.list(c.Loop.Body, at)
	case c.Group != nil:
		w.list(*c.Group, at)
	}
}
