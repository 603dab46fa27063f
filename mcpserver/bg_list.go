//go:build linux

package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/internal/termtext"
	"github.com/hangdog/hangdog/taskctl"
)

type bgTasksInput struct {
	All bool `json:"all,omitempty" jsonschema:"list every session's tasks and every ended one, not only this session's and the 15 most recently ended"`
}

type taskIDInput struct {
	ID string `json:"id" jsonschema:"the task id, e.g. t4 (from a bash result, a notification or bg_tasks)"`
}

type bgLogsInput struct {
	ID          string `json:"id" jsonschema:"the task id, e.g. t4"`
	TailLines   int    `json:"tail_lines,omitempty" jsonschema:"only the last N lines"`
	SinceOffset *int64 `json:"since_offset,omitempty" jsonschema:"byte offset in the task's log to read from (0 is the start); the answer says the offset to continue from"`
}

const (
	recentEnded = 15
	logsReadMax = 256 << 10
)

// getTask finds a task, with a message a model can act on when it cannot.
func (s *Server) getTask(id string) (*bgtasks.Task, *toolResult) {
	id = strings.TrimSpace(id)
	if id == "" {
		r := errorResult("give a task id, e.g. {\"id\": \"t4\"}; bg_tasks lists them")
		return nil, &r
	}
	t, err := s.reg.Get(id)
	if err != nil {
		r := errorResult("%v", err)
		if errors.Is(err, bgtasks.ErrNotFound) {
			r = errorResult("no task %q; bg_tasks lists the tasks there are", id)
		}
		return nil, &r
	}
	return t, nil
}

func (s *Server) bgTasks(ctx context.Context, in bgTasksInput) toolResult {
	tasks, err := s.reg.List()
	if err != nil {
		return errorResult("%v", err)
	}
	if !in.All {
		tasks = bgtasks.Scope{Owner: s.Consumer()}.Tasks(tasks)
	}
	now := time.Now()
	var b strings.Builder
	list := &tasksOutput{Tasks: []taskInfo{}}
	ended, shown := 0, 0
	for _, t := range tasks {
		if t.State().Ended() {
			ended++
			if !in.All && ended > recentEnded {
				continue
			}
		}
		if shown == 0 {
			fmt.Fprintf(&b, "%-6s %-22s %-11s %-12s %s\n", "ID", "STATE", "MODE", "RAN", "COMMAND")
		}
		shown++
		list.Tasks = append(list.Tasks, taskInfoOf(t, now))
		fmt.Fprintf(&b, "%-6s %-22s %-11s %-12s %s\n", t.ID, taskState(t), t.Mode, taskctl.Spoken.Format(t.Duration(now)), commandLabel(t.Command))
	}
	if shown == 0 {
		if !in.All {
			return toolResult{text: "No tasks of this session yet; {\"all\": true} lists every session's.", tasks: list}
		}
		return toolResult{text: "No tasks yet.", tasks: list}
	}
	if hidden := ended - recentEnded; !in.All && hidden > 0 {
		list.HiddenEnded = hidden
		fmt.Fprintf(&b, "(%d older ended tasks not shown; {\"all\": true} lists them)\n", hidden)
	}
	b.WriteString("bg_logs {\"id\": ...} reads a task's output.")
	return toolResult{text: b.String(), tasks: list}
}

// endKind is the event kind that announces a task ending in state st.
func endKind(st bgtasks.State) string {
	switch st {
	case bgtasks.Killed:
		return bgtasks.EventKilled
	case bgtasks.Lost:
		return bgtasks.EventLost
	}
	return bgtasks.EventExited
}

func taskState(t *bgtasks.Task) string {
	if t.Result == nil {
		return string(t.State())
	}
	return taskctl.DescribeEnd(t.Result, agentWords{})
}

func (s *Server) bgLogs(ctx context.Context, in bgLogsInput) toolResult {
	t, bad := s.getTask(in.ID)
	if bad != nil {
		return *bad
	}
	if in.TailLines < 0 || (in.SinceOffset != nil && *in.SinceOffset < 0) {
		return errorResult("tail_lines and since_offset must not be negative")
	}
	size, err := logSize(t)
	if err != nil {
		return errorResult("%v", err)
	}
	header := fmt.Sprintf("Task %s (%s), %s, %s; its log has %d bytes.\n", t.ID, commandLabel(t.Command), taskState(t), taskctl.Spoken.Format(t.Duration(time.Now())), size)
	var b strings.Builder
	b.WriteString(header)
	data := taskRecord(t)
	data.OutputBytes = size
	switch {
	case in.SinceOffset != nil:
		from := min(*in.SinceOffset, size)
		raw, err := readLog(t, from, logsReadMax)
		if err != nil {
			return errorResult("%v", err)
		}
		text, n := termtext.Head(raw, s.limit)
		to := from + int64(n)
		fmt.Fprintf(&b, "Bytes %d-%d:\n", from, to)
		writeOutput(&b, text)
		data.Output = text
		if to < size {
			data.NextOffset = &to
			fmt.Fprintf(&b, "[more: bg_logs {\"id\": %q, \"since_offset\": %d}]", t.ID, to)
		}
	case in.TailLines > 0:
		from := max(size-logsReadMax, 0)
		raw, err := readLog(t, from, logsReadMax)
		if err != nil {
			return errorResult("%v", err)
		}
		if from > 0 {
			// The read starts mid-line; a line's end alone would mislead.
			if i := bytes.IndexByte(raw, '\n'); i >= 0 {
				raw, from = raw[i+1:], from+int64(i+1)
			}
		}
		full, start := termtext.Tail(raw, s.limit)
		text := termtext.LastLines(full, in.TailLines)
		if from+int64(start) > 0 || len(text) < len(strings.TrimRight(full, "\n")) {
			fmt.Fprintf(&b, "Last lines (the whole output: bg_logs {\"id\": %q, \"since_offset\": 0}):\n", t.ID)
		}
		writeOutput(&b, text)
		data.Output = text
	default:
		w, err := logWindow(t, size)
		if err != nil {
			return errorResult("%v", err)
		}
		shown := shape(w, s.limit, t.ID)
		data.Output, data.Omitted, data.Screen = shown.Text, shown.Omitted, shown.Screen
		writeOutput(&b, data.Output)
	}
	return toolResult{text: strings.TrimRight(b.String(), "\n"), task: data}
}
