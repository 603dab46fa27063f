package taskctl

import (
	"fmt"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/internal/termtext"
)

// CallStats sums up the MCP tool calls in flight on one or more proxied
// servers (bgtasks.Task.Calls), as every front end shows them: how many,
// the oldest, and how many are judged stuck.
type CallStats struct {
	N          int
	Stuck      int
	Oldest     time.Time // the oldest call's start
	OldestTool string
}

// Add counts calls in.
func (s *CallStats) Add(calls []bgtasks.Call) {
	for _, c := range calls {
		s.N++
		if c.Stuck {
			s.Stuck++
		}
		if s.OldestTool == "" || c.Started.Before(s.Oldest) {
			s.Oldest, s.OldestTool = c.Started, c.Tool
		}
	}
}

// Age is how long the oldest call has run at now.
func (s CallStats) Age(now time.Time) time.Duration { return max(now.Sub(s.Oldest), 0) }

// Text says it in a few words, with the oldest call's tool and age in
// style: "1 call: fetch 45s", "3 calls: fetch 2m05s, 1 stuck"; "" for none.
func (s CallStats) Text(now time.Time, style DurationStyle) string {
	if s.N == 0 {
		return ""
	}
	t := fmt.Sprintf("%s: %s %s", s.Count(), s.OldestTool, style.Format(s.Age(now)))
	if s.Stuck > 0 {
		t += fmt.Sprintf(", %d stuck", s.Stuck)
	}
	return t
}

// Count is "1 call", "2 calls".
func (s CallStats) Count() string {
	if s.N == 1 {
		return "1 call"
	}
	return fmt.Sprintf("%d calls", s.N)
}

// DescribeCall is one call in flight in a line: its tool, request id, age,
// latest progress and verdict: "fetch (id 7) 45s · progress 3s ago · stuck",
// safe for a terminal (the tool and id are the client's words).
func DescribeCall(c bgtasks.Call, now time.Time, style DurationStyle) string {
	t := fmt.Sprintf("%s (id %s) %s", c.Tool, c.RequestID, style.Format(max(now.Sub(c.Started), 0)))
	if !c.LastProgress.IsZero() {
		t += " · progress " + style.Format(max(now.Sub(c.LastProgress), 0)) + " ago"
	}
	switch {
	case c.Stuck:
		t += " · stuck"
	case c.Verdict != "":
		t += " · " + c.Verdict
	}
	return termtext.OneLine(t)
}

// ListedCommand is a task's command as listings show it, on one line: a
// proxied MCP server's calls in flight lead it, so a row cut to the width
// keeps them ("[1 call: fetch 45s] mcp-proxy fetch: uvx mcp-server-fetch").
// A tool's name is the client's words, made safe for a terminal as the
// command is.
func ListedCommand(t *bgtasks.Task, now time.Time) string {
	command := t.Command
	var calls CallStats
	if calls.Add(t.Calls); calls.N > 0 {
		command = "[" + calls.Text(now, Compact) + "] " + command
	}
	return termtext.OneLine(command)
}
