package tui

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// slashCommand is one of the shell's own commands.
type slashCommand struct {
	name  string
	args  string // usage after the name
	help  string
	takes argKind
}

type argKind int

const (
	argNone argKind = iota
	argText
	argTask // the first argument is a task id
)

var slashCommands = []slashCommand{
	{"/bg-detach", "[reason]", "move the running command to the background (also Ctrl+B)", argText},
	{"/bg", "", "list background tasks: view a log, send a line, kill", argNone},
	{"/logs", "ID", "follow a task's output", argTask},
	{"/kill", "ID", "stop a task and everything it started", argTask},
	{"/send", "ID TEXT", "type TEXT and Enter into a task's terminal (\\n, \\t, \\x03 escapes)", argTask},
	{"/watch", "", "list watchers: kind, state, fires used, last check, why paused (also /watchers)", argNone},
	{"/watchers", "", "the same as /watch", argNone},
	{"/events", "", "list past notices: tasks that ended, were detached or warned", argNone},
	{"/settings", "", "show and edit the watchdog settings", argNone},
	{"/log", "", "follow the watchdog's debug log", argNone},
	{"/clear", "", "clear the scrollback (also Ctrl+L)", argNone},
	{"/help", "", "keys and commands", argNone},
	{"/quit", "", "leave the shell (also Ctrl+D on an empty prompt)", argNone},
}

// parseSlash splits "/name rest" into the command and its argument text.
func parseSlash(line string) (name, rest string) {
	line = strings.TrimSpace(line)
	name, rest, _ = strings.Cut(line, " ")
	return strings.ToLower(name), strings.TrimSpace(rest)
}

func findSlash(name string) (slashCommand, bool) {
	for _, c := range slashCommands {
		if c.name == name {
			return c, true
		}
	}
	return slashCommand{}, false
}

// complete finishes the word being typed at the end of line: a command name
// after "/", or a task id as a command's first argument. It returns the new
// line and, when the word is still ambiguous, the candidates.
func complete(line string, taskIDs []string) (string, []string) {
	if !strings.HasPrefix(line, "/") {
		return line, nil
	}
	name, rest, hasSpace := strings.Cut(line, " ")
	if !hasSpace {
		var names []string
		for _, c := range slashCommands {
			if strings.HasPrefix(c.name, strings.ToLower(name)) {
				names = append(names, c.name)
			}
		}
		return extend(line, "", name, names)
	}
	cmd, ok := findSlash(strings.ToLower(name))
	if !ok || cmd.takes != argTask || strings.Contains(strings.TrimLeft(rest, " "), " ") {
		return line, nil
	}
	word := strings.TrimLeft(rest, " ")
	var ids []string
	for _, id := range taskIDs {
		if strings.HasPrefix(id, word) {
			ids = append(ids, id)
		}
	}
	return extend(line, line[:len(line)-len(word)], word, ids)
}

// extend replaces word (the end of line, after prefix) with the candidates'
// longest common prefix, adding a space when only one is left.
func extend(line, prefix, word string, candidates []string) (string, []string) {
	switch len(candidates) {
	case 0:
		return line, nil
	case 1:
		if strings.HasSuffix(candidates[0], "/") {
			return prefix + candidates[0], nil // a directory: more may follow
		}
		return prefix + candidates[0] + " ", nil
	}
	common := candidates[0]
	for _, c := range candidates[1:] {
		for !strings.HasPrefix(c, common) {
			common = common[:len(common)-1]
		}
	}
	if len(common) > len(word) {
		line = prefix + common
	}
	slices.Sort(candidates)
	return line, candidates
}

// completeLine is Tab on the prompt: a /command and its task id, or, for a
// command line, a command name from $PATH (the first word) or a path (any
// other word, or a first word with a slash in it), relative to dir.
func completeLine(line string, taskIDs []string, dir string) (string, []string) {
	if strings.HasPrefix(line, "/") {
		name, _, hasSpace := strings.Cut(line, " ")
		if _, known := findSlash(strings.ToLower(name)); known || !hasSpace && slashPrefix(name) {
			return complete(line, taskIDs)
		}
	}
	start := strings.LastIndexAny(line, " \t") + 1
	word := line[start:]
	if start == 0 || strings.TrimSpace(line[:start]) == "" {
		if !strings.Contains(word, "/") && word != "" && word != "~" && !strings.HasPrefix(word, ".") {
			return extend(line, line[:start], word, commandNames(word))
		}
	}
	return extend(line, line[:start], word, pathNames(word, dir))
}

func slashPrefix(name string) bool {
	for _, c := range slashCommands {
		if strings.HasPrefix(c.name, strings.ToLower(name)) {
			return true
		}
	}
	return false
}

// maxCandidates bounds what a Tab lists: a bare Tab in /usr/bin lists
// thousands.
const maxCandidates = 200

// commandNames are the executables in $PATH starting with prefix, and the
// shell's own words.
func commandNames(prefix string) []string {
	seen := map[string]bool{}
	var names []string
	for _, b := range []string{"cd", "exit"} {
		if strings.HasPrefix(b, prefix) {
			seen[b] = true
			names = append(names, b)
		}
	}
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		ents, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range ents {
			n := e.Name()
			if !strings.HasPrefix(n, prefix) || seen[n] || len(names) >= maxCandidates {
				continue
			}
			if info, err := os.Stat(filepath.Join(d, n)); err == nil && !info.IsDir() && info.Mode()&0o111 != 0 {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	return names
}

// pathNames are the entries matching word as a path prefix, as the word
// would read completed: directories end in "/". Hidden entries show only
// when the word asks for them with a dot.
func pathNames(word, dir string) []string {
	home, _ := os.UserHomeDir()
	lookup := word
	switch {
	case word == "~":
		lookup, word = home+"/", "~/"
	case strings.HasPrefix(word, "~/"):
		lookup = home + word[1:]
	}
	d, base := filepath.Split(lookup)
	wd, wprefix := d, word[:len(word)-len(base)]
	if d == "" {
		wd = "."
	}
	if !filepath.IsAbs(wd) {
		wd = filepath.Join(dir, wd)
	}
	ents, err := os.ReadDir(wd)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range ents {
		n := e.Name()
		if !strings.HasPrefix(n, base) || strings.HasPrefix(n, ".") && !strings.HasPrefix(base, ".") {
			continue
		}
		full := wprefix + n
		if info, err := os.Stat(filepath.Join(wd, n)); err == nil && info.IsDir() {
			full += "/"
		}
		names = append(names, full)
		if len(names) >= maxCandidates {
			break
		}
	}
	return names
}
