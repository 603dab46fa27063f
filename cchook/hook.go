package cchook

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/taskctl"
)

// Input is what Claude Code writes on a hook's stdin (the fields hangdog
// reads).
type Input struct {
	HookEventName  string         `json:"hook_event_name"`
	SessionID      string         `json:"session_id"`
	Cwd            string         `json:"cwd"`
	PermissionMode string         `json:"permission_mode"`
	ToolName       string         `json:"tool_name"`
	ToolUseID      string         `json:"tool_use_id"`
	ToolInput      map[string]any `json:"tool_input"`
	ToolResponse   any            `json:"tool_response"`
	StopHookActive bool           `json:"stop_hook_active"`
}

// toolBash is Claude Code's own shell tool, the one the PreToolUse hook
// rewrites. hangdog's MCP bash needs no hook per call: its server is the
// session's (`hangdog mcp` under Claude Code), so it tells the session's news
// and owns its tasks itself.
const toolBash = "Bash"

// Hook is one `hangdog hook` call.
type Hook struct {
	Reg *bgtasks.Registry
	// Bin is the hangdog binary a rewritten Bash call runs.
	Bin    string
	Getenv func(string) string
	// PPID is the hook's parent (Claude Code), whose command line holds
	// --allowedTools and --disallowedTools.
	PPID           int
	Stdout, Stderr io.Writer
}

// Handle answers one hook call and returns the hook's exit status. A hook
// that cannot do its part says why on stderr and exits 1, which Claude Code
// takes as a non-blocking error: the call goes on without hangdog.
func (h *Hook) Handle(ctx context.Context, stdin io.Reader) int {
	var in Input
	if err := json.NewDecoder(stdin).Decode(&in); err != nil {
		fmt.Fprintf(h.Stderr, "hangdog hook: input is not Claude Code's hook JSON: %v\n", err)
		return 1
	}
	var err error
	switch in.HookEventName {
	case "SessionStart":
		err = h.sessionStart(in)
	case "PreToolUse":
		err = h.preToolUse(in)
	case "PostToolUse":
		err = h.postToolUse(in)
	case "Stop":
		err = h.stop(ctx, in)
	case "SessionEnd":
		err = h.sessionEnd(ctx, in)
	}
	if err != nil {
		fmt.Fprintf(h.Stderr, "hangdog hook %s: %v\n", in.HookEventName, err)
		return 1
	}
	return 0
}

// answer writes the hook's JSON answer.
func (h *Hook) answer(v any) error {
	enc := json.NewEncoder(h.Stdout)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func (h *Hook) sessionStart(in Input) error {
	s, err := openSession(h.Reg, in.SessionID)
	if err != nil {
		return err
	}
	return s.start()
}

// sessionEnd applies tasks.onSessionEnd (kill, by default) to the tasks the
// session started, and removes what its calls left behind.
func (h *Hook) sessionEnd(ctx context.Context, in Input) error {
	s, err := openSession(h.Reg, in.SessionID)
	if err != nil {
		return err
	}
	dir := in.Cwd
	if dir == "" {
		dir, _ = os.Getwd()
	}
	// The cwd files of calls moved to the background, written when their
	// shells ended.
	if old, err := filepath.Glob(filepath.Join(s.dir, "*.cwd")); err == nil {
		for _, f := range old {
			os.Remove(f)
		}
	}
	// `bg end-session` is the one session end: it pauses the session's
	// watchers and links through the watcher service (which this lite
	// package cannot link: it brings net/http) and then applies
	// tasks.onSessionEnd to its tasks, as the MCP server's end does.
	cmd := exec.CommandContext(ctx, h.Bin, "bg", "end-session", "--session", s.owner())
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("end session %s (hangdog bg end-session): %w", s.owner(), err)
	}
	return nil
}

// --- PostToolUse ---------------------------------------------------------

// postToolUse times Claude Code's built-in tools (builtin.go).
func (h *Hook) postToolUse(in Input) error {
	if builtinTools[in.ToolName] {
		return h.postBuiltin(in)
	}
	return nil
}

// --- what a detached task waits for ------------------------------------

// The kinds of wait the hooks tell apart: only kindTime and kindBackground
// can end by themselves, and only those are waited for at Stop.
const (
	kindTime       = "time"
	kindBackground = "background"
	kindInput      = "input"
	kindPager      = "pager"
	kindEditor     = "editor"
	kindService    = "service"
	kindStuck      = "stuck"
)

// reasonKinds are compiled on first use, not at every hook's start.
var reasonKinds = sync.OnceValue(func() []reasonKind {
	return []reasonKind{
		{kindPager, regexp.MustCompile(`\bpager\b`)},
		{kindEditor, regexp.MustCompile(`\beditor\b`)},
		{kindService, regexp.MustCompile(`service listening|listening on`)},
		{kindInput, regexp.MustCompile(`waiting for input|waits for input|password`)},
		{kindStuck, regexp.MustCompile(`stuck|looping|retry`)},
	}
})

type reasonKind struct {
	kind string
	rx   *regexp.Regexp
}

// waitKindOf maps what the watchdog says a detached run waits for (wait,
// taskctl's kinds), else the words of its reason, to the hook's kind.
func waitKindOf(wait, reason string) string {
	switch wait {
	case taskctl.WaitPager:
		return kindPager
	case taskctl.WaitEditor:
		return kindEditor
	case taskctl.WaitService:
		return kindService
	case taskctl.WaitPrompt, taskctl.WaitSecret, taskctl.WaitREPL, taskctl.WaitMenu, taskctl.WaitForm, taskctl.WaitStdin, taskctl.WaitScreen:
		return kindInput
	}
	for _, k := range reasonKinds() {
		if k.rx.MatchString(reason) {
			return k.kind
		}
	}
	return kindTime
}
