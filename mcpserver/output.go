package mcpserver

import "github.com/hangdog/hangdog/taskctl"

// DefaultOutputLimit is how much plain text of a command's output goes into
// one tool result. Output costs the model context; past this the middle is
// left out, with a note saying how to read it (taskctl.Shape).
const DefaultOutputLimit = 24 << 10

// shape is what a result shows of an output: taskctl.Shape, whose notes
// name the bg_logs call that reads what was left out.
func shape(w taskctl.Window, limit int, id string) taskctl.Shown {
	return taskctl.Shape(w, limit, id, agentCalls{})
}
