package watchdog

import (
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/hangdog/hangdog/internal/termtext"
	"github.com/hangdog/hangdog/supervisor/sampler"
)

// inputWait is what a process blocked on the terminal is waiting for.
type inputWait struct {
	kind    string
	program string
	line    string // the prompt, untrusted: the unfinished last line, or the line above it
	above   bool   // the last line was empty and the prompt is the line above
}

// Programs by what they are when they read the terminal. An interpreter
// counts as a REPL only when it runs no script (see isREPL).
var (
	// Debian runs them through its alternatives: `editor` (git's default
	// editor there) and `pager` (man's and git's pager).
	pagers       = set("less", "more", "most", "pg", "man", "bat", "w3m", "lynx", "pager", "sensible-pager")
	editors      = set("editor", "sensible-editor", "vim", "vi", "vim.basic", "vim.tiny", "nvim", "view", "vimdiff", "ex", "nano", "pico", "emacs", "emacs-nox", "micro", "hx", "helix", "kak", "joe", "jed", "mcedit", "ne", "ed", "red")
	shells       = set("sqlite3", "sqlite", "bc", "dc", "gdb", "lldb", "pdb", "psql", "mysql", "mariadb", "redis-cli", "mongo", "mongosh", "irb", "ghci", "jshell", "iex", "erl", "sqlcmd", "cqlsh", "ftp", "sftp")
	interpreters = set("python", "python2", "python3", "node", "nodejs", "ruby", "perl", "lua", "php", "tclsh", "wish", "R", "julia", "deno", "bun")
)

func set(xs ...string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

// The prompts below are compiled on first use, not at start-up: every
// supervisor links this package, and most commands end before a check.
var (
	// replPrompt: the prompts interpreters and debuggers print.
	replPrompt = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(>>> ?|\.\.\. ?|\(Pdb\) ?|\(gdb\) ?|\(lldb\) ?|sqlite> ?|irb\(.*\)[>*] ?|mysql> ?|[A-Za-z_]+=[#>] ?|ipdb> ?)$`)
	})
	// menuPrompt: bash select's default PS3, or a choice among numbers.
	menuPrompt = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(^#\? ?$|\b(choose|select|pick|choice|option)\b.*(\d+\s*[-–]\s*\d+|\[\d+\]))`)
	})
	// menuItem: one numbered choice printed above the prompt.
	menuItem = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*\d+[).]\s+\S`) })
	// formField: a named field with its default in brackets, ending in a
	// colon — openssl req, debconf, npm init ("package name: (app)").
	formField = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`((\[[^\]]*\]|\([^)]*\))\s*:|:\s*\([^)]*\))\s*$`)
	})
	yesNo = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)[\[(](y|n|yes|no)(/(y|n|yes|no|\[?fingerprint\]?|a|q|d|e|s|j|k|\?))+[\])]`)
	})
)

// classifyInput names the wait: who reads (the reader's argv, not the
// command string), in what terminal mode, after which prompt.
func classifyInput(t sampler.Tree, lastLine string, tail []string) inputWait {
	w := inputWait{program: readerName(t), line: lastLine}
	prog := filepath.Base(w.program)
	argv := readerArgv(t)
	if strings.TrimSpace(termtext.Plain([]byte(lastLine))) == "" && len(tail) > 0 {
		if above := strings.TrimSpace(termtext.Plain([]byte(tail[len(tail)-1]))); above != "" && promptish(above) {
			w.line, w.above = above, true
		}
	}
	line := strings.TrimSpace(termtext.Plain([]byte(w.line)))
	switch {
	case t.TTYMode == sampler.TTYSecret:
		w.kind = InputSecret
	case pagers[prog]:
		w.kind = InputPager
	case editors[prog]:
		w.kind = InputEditor
	case isREPL(prog, argv, line):
		w.kind = InputREPL
	case t.TTYMode == sampler.TTYRaw:
		w.kind = InputScreen
	case line != "" && (menuPrompt().MatchString(line) || numberedAbove(tail, w.above)):
		w.kind = InputMenu
	case line != "" && formField().MatchString(line) && !yesNo().MatchString(line):
		w.kind = InputForm
	case line != "":
		w.kind = InputPrompt
	default:
		w.kind = InputStdin
	}
	return w
}

// isREPL: a database shell or debugger, an interpreter with no script to
// run (python3, node, python3 -i, python3 -m pdb), or a REPL's own prompt.
func isREPL(prog string, argv []string, line string) bool {
	if shells[prog] {
		return true
	}
	if replPrompt().MatchString(line) {
		return true
	}
	if !interpreters[prog] && !strings.HasPrefix(prog, "python3.") {
		return false
	}
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "-i" || a == "-m" && i+1 < len(argv) && (argv[i+1] == "pdb" || argv[i+1] == "code" || argv[i+1] == "ipdb"):
			return true
		case a == "-c" || a == "-e" || a == "-m" || a == "-p" || a == "--eval" || a == "--print":
			return false // code or a module to run: its input() is a prompt
		case !strings.HasPrefix(a, "-"):
			return false // a script
		}
	}
	return true
}

// numberedAbove: the lines just above the prompt are numbered choices.
func numberedAbove(tail []string, above bool) bool {
	end := len(tail)
	if above {
		end-- // the prompt itself
	}
	n := 0
	for i := end - 1; i >= 0 && i >= end-6; i-- {
		if !menuItem().MatchString(termtext.Plain([]byte(tail[i]))) {
			break
		}
		n++
	}
	return n >= 2
}

// promptish: a complete line that reads as a question or a request for
// input, so an empty last line after it means the answer goes below it.
func promptish(line string) bool {
	if strings.ContainsRune(":?>", rune(line[len(line)-1])) {
		return true
	}
	lower := strings.ToLower(line)
	for _, k := range [...]string{"enter ", "type ", "press ", "input "} {
		if strings.Contains(lower, k) {
			return true
		}
	}
	return false
}

// readerArgv is the argv of the process reading the terminal.
func readerArgv(t sampler.Tree) []string {
	for _, p := range t.Procs {
		if p.PID == t.ReadingTTYPID {
			return p.Argv
		}
	}
	return nil
}

// describe says what the process waits for, for a caller that cannot see
// the terminal.
func (w inputWait) describe() string {
	prog := quote(w.program, 30)
	prompt := "last line " + quote(w.line, 160)
	if w.above {
		prompt = "prompt " + quote(w.line, 160) + " on the line above"
	}
	switch w.kind {
	case InputPrompt:
		return prompt + " (sending the task input answers it)"
	case InputSecret:
		s := "password prompt"
		if strings.TrimSpace(w.line) != "" {
			s += " " + quote(w.line, 160)
		}
		return s + " (echo is off; it wants a secret)"
	case InputPager:
		return "pager " + prog + " is showing output (sending the task q quits it)"
	case InputEditor:
		return "editor " + prog + " is open and waiting for keys"
	case InputREPL:
		s := "interactive shell " + prog + " (a REPL or debugger) is at its prompt"
		if strings.TrimSpace(w.line) != "" {
			s += " " + quote(w.line, 60)
		}
		return s
	case InputMenu:
		return "menu: " + prompt + " asks to pick one of numbered choices"
	case InputForm:
		return "form field: " + prompt + " (each field is asked in turn)"
	case InputScreen:
		return "full-screen program " + prog + " is waiting for keys"
	}
	return prog + " is reading the terminal with no prompt shown"
}

// advice is what to do instead of re-running the same way.
func (w inputWait) advice() string {
	switch w.kind {
	case InputPrompt:
		return "answer it non-interactively (a flag such as --yes, or the answer on stdin)"
	case InputSecret:
		return "never send a secret you were not given; supply credentials another way (an agent, a token or a config file)"
	case InputPager:
		return "turn the pager off (--no-pager, PAGER=cat, MANPAGER=cat, or pipe to cat)"
	case InputEditor:
		return "pass the text on the command line instead of an editor (git commit -m, GIT_EDITOR=true, GIT_SEQUENCE_EDITOR for rebase -i)"
	case InputREPL:
		return "give it a script or the statements on stdin (python3 script.py, sqlite3 DB 'SQL;', echo EXPR | bc, gdb -batch -ex CMD)"
	case InputMenu:
		return "choose on the command line (a flag for the option) or send the number as input"
	case InputForm:
		return "give the fields up front (a flag such as openssl's -subj, a config or answers file)"
	case InputScreen:
		return "use the program's batch or plain-output mode"
	}
	return "give it input on stdin or run it with </dev/null"
}
