package cchook

import (
	"fmt"
	"time"

	"github.com/hangdog/hangdog/internal/termtext"
)

// Claude Code's built-in tools that can hang on something outside the
// machine (a web site, a subagent's whole run). They run inside Claude
// Code: hangdog cannot sample or cancel them. A hook sees each start and
// end, so it times them and tells the model of a slow one in the next
// context; that is all a hook can do.
var builtinTools = map[string]bool{"WebFetch": true, "WebSearch": true, "Task": true, "Agent": true}

// SlowBuiltinAfter is how long a built-in tool's call may take before its
// PostToolUse tells the model it was slow.
const SlowBuiltinAfter = time.Minute

// startsKept bounds the built-in calls whose start the record keeps: a call
// whose PostToolUse never came (interrupted) must not grow it.
const startsKept = 64

// preBuiltin notes when a built-in tool's call starts.
func (h *Hook) preBuiltin(in Input) error {
	if in.ToolUseID == "" {
		return nil
	}
	s, err := openSession(h.Reg, in.SessionID)
	if err != nil {
		return err
	}
	now := time.Now()
	return s.update(func(r *record) bool {
		if r.Started == nil {
			r.Started = map[string]time.Time{}
		}
		r.Started[in.ToolUseID] = now
		for len(r.Started) > startsKept {
			oldest := ""
			for id, t := range r.Started {
				if oldest == "" || t.Before(r.Started[oldest]) {
					oldest = id
				}
			}
			delete(r.Started, oldest)
		}
		return true
	})
}

// postBuiltin tells the model, in the next context, that a built-in call
// took longer than SlowBuiltinAfter.
func (h *Hook) postBuiltin(in Input) error {
	if in.ToolUseID == "" {
		return nil
	}
	s, err := openSession(h.Reg, in.SessionID)
	if err != nil {
		return err
	}
	var started time.Time
	if err := s.update(func(r *record) bool {
		t, ok := r.Started[in.ToolUseID]
		if ok {
			started = t
			delete(r.Started, in.ToolUseID)
		}
		return ok
	}); err != nil {
		return err
	}
	if started.IsZero() {
		return nil
	}
	took := time.Since(started)
	if took < SlowBuiltinAfter {
		return nil
	}
	return h.answer(map[string]any{"hookSpecificOutput": hookOutput{
		HookEventName:     "PostToolUse",
		AdditionalContext: slowBuiltinNote(in, took),
	}})
}

// slowBuiltinNote names the call by what it was given: the URL, the query
// or the subagent's description.
func slowBuiltinNote(in Input, took time.Duration) string {
	what := in.ToolName
	for _, k := range []string{"url", "query", "description"} {
		if v, ok := in.ToolInput[k].(string); ok && v != "" {
			what += " " + termtext.Clip(termtext.OneLine(v), 120)
			break
		}
	}
	return fmt.Sprintf("hangdog: this %s call took %s. hangdog cannot stop Claude Code's built-in tools while they run; if it is called again the same way it may take as long.",
		what, took.Round(time.Second))
}
