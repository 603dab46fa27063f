package mcpserver

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/internal/termtext"
	"github.com/hangdog/hangdog/taskctl"
)

// commandLabel is a command as quoted in one line of text: control bytes
// gone, whitespace folded, cut to a length a reader can take in.
func commandLabel(cmd string) string {
	cmd = strings.Join(strings.Fields(termtext.Plain([]byte(cmd))), " ")
	cmd = strings.ReplaceAll(cmd, "`", "'")
	const limit = 80
	if utf8.RuneCountInString(cmd) > limit {
		r := []rune(cmd)
		cmd = string(r[:limit-1]) + "…"
	}
	return "`" + cmd + "`"
}

// agentWords are how the MCP server says a task ended: "exit 1", "ended by
// SIGSEGV (exit 139)", "killed (exit 143)", "lost".
type agentWords struct{}

func (agentWords) Lost() string { return "lost" }
func (agentWords) Killed(r *bgtasks.Result) string {
	return fmt.Sprintf("killed (exit %d)", r.ExitCode)
}
func (agentWords) Signaled(r *bgtasks.Result) string {
	return fmt.Sprintf("ended by %s (exit %d)", r.Signal, r.ExitCode)
}
func (agentWords) Exited(r *bgtasks.Result) string { return fmt.Sprintf("exit %d", r.ExitCode) }

// killedLine is the first line of a killed run's error result: the reason
// as hangdog recorded it (the watchdog's starts with "⚠ Killed by hangdog
// watchdog"), marked the same way when it came from elsewhere.
func killedLine(reason string) string {
	reason = strings.TrimSpace(reason)
	if reason == "" {
		reason = "killed by hangdog"
	}
	if strings.HasPrefix(reason, "⚠") {
		return reason
	}
	return "⚠ Killed: " + reason
}

// indent prefixes each line of text, for quoted output inside a notice.
func indent(text, prefix string) string {
	if text == "" {
		return ""
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n")
}

// nextSteps tells the model what it can do with a task that is still
// running, fitted to what it waits for, with calls it can copy.
func nextSteps(wait, id string) string {
	return taskctl.NextSteps(wait, id, agentCalls{}) + " Its end is also reported at the top of a later tool result."
}

// agentCalls are the tool calls a model makes on a task.
type agentCalls struct{}

func (agentCalls) Logs(id string) string { return fmt.Sprintf("bg_logs {\"id\": %q}", id) }
func (agentCalls) LogsFrom(id string, off int64) string {
	return fmt.Sprintf("bg_logs {\"id\": %q, \"since_offset\": %d}", id, off)
}
func (agentCalls) Wait(id string) string {
	return fmt.Sprintf("bg_wait {\"id\": %q, \"timeout_seconds\": 60}", id)
}
func (agentCalls) Kill(id string) string { return fmt.Sprintf("bg_kill {\"id\": %q}", id) }
func (agentCalls) Send(id, text string) string {
	q, _ := json.Marshal(text)
	return fmt.Sprintf("bg_send {\"id\": %q, \"text\": %s}", id, q)
}
