package cchook

import (
	"strings"

	"github.com/hangdog/hangdog/bgtasks"
)

// TakeNews hands tell the news of Claude Code session sessionID not yet
// told, and marks it told once tell returned nil: the same cursor and the
// same choice of events as the session's hooks, so whichever of them (the
// plugin's monitor, a hook) takes an event, the model hears it once.
func TakeNews(reg *bgtasks.Registry, sessionID string, tell func([]bgtasks.Event) error) error {
	s, err := openSession(reg, sessionID)
	if err != nil {
		return err
	}
	return s.takeNews(tell)
}

// Line is an event as the hooks tell it, on one line, for a harness that
// makes a message of each line of a command's output (Claude Code's plugin
// monitor): the quoted output lines are joined with " ⏎ ".
func Line(e bgtasks.Event) string {
	lines := strings.Split(describe(e), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return "hangdog: " + strings.Join(lines, " ⏎ ")
}
