package tui

import (
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
