package taskctl

import (
	"strings"
	"testing"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
)

// The calls in flight are summed up by their count, the oldest one's tool
// and age, and how many are stuck; a tool's name cannot reach a terminal
// as an escape sequence.
func TestCallsAreSummedUp(t *testing.T) {
	now := time.Now()
	task := &bgtasks.Task{Meta: bgtasks.Meta{Command: "mcp-proxy fetch: uvx mcp-server-fetch"}}
	if got := ListedCommand(task, now); got != task.Command {
		t.Errorf("no calls: %q, want the command alone", got)
	}
	task.Calls = []bgtasks.Call{
		{Tool: "search", RequestID: "8", Started: now.Add(-5 * time.Second), Stuck: true},
		{Tool: "fetch\x1b]0;owned\x07", RequestID: `"a"`, Started: now.Add(-125 * time.Second), LastProgress: now.Add(-3 * time.Second), Verdict: "progressing"},
	}
	got := ListedCommand(task, now)
	if !strings.HasPrefix(got, "[2 calls: fetch") || !strings.Contains(got, " 125s, 1 stuck] mcp-proxy fetch: ") || strings.ContainsAny(got, "\x1b\x07") {
		t.Errorf("two calls: %q, want the count, the oldest's tool and age, one stuck, no escapes", got)
	}
	if d := DescribeCall(task.Calls[1], now, Compact); !strings.Contains(d, `(id "a") 125s · progress 3s ago · progressing`) || strings.ContainsAny(d, "\x1b\x07") {
		t.Errorf("DescribeCall: %q", d)
	}
	if d := DescribeCall(task.Calls[0], now, Compact); d != "search (id 8) 5s · stuck" {
		t.Errorf("DescribeCall of a stuck call: %q", d)
	}
}
