package cchook

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/taskctl"
)

// shellStateBuiltins change Claude Code's shell itself: alone, such a
// command goes to Claude Code's own Bash untouched (`cd sub` moves it).
var shellStateBuiltins = map[string]bool{"cd": true, "pushd": true, "popd": true, "export": true, "unset": true,
	"source": true, ".": true, "alias": true, "unalias": true, "set": true, "shopt": true, "exit": true}

// The environment variables that steer the hooks.
const (
	envPermission = "HANGDOG_PERMISSION" // rules (default), allow, none
	envStopWait   = "HANGDOG_STOP_WAIT"  // how long Stop waits for the session's own work
	envHookSet    = "HANGDOG_HOOK_SET"   // settings for supervised calls, "key=value ..."
	envProfile    = "HANGDOG_AGENT_PROFILE"
)

// defaultToolTimeoutMS is Claude Code's Bash timeout when a call sets none.
const defaultToolTimeoutMS = 120000

// hookOutput is hookSpecificOutput of a PreToolUse answer.
type hookOutput struct {
	HookEventName            string         `json:"hookEventName"`
	UpdatedInput             map[string]any `json:"updatedInput,omitempty"`
	PermissionDecision       string         `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string         `json:"permissionDecisionReason,omitempty"`
	AdditionalContext        string         `json:"additionalContext,omitempty"`
}

func (h *Hook) preToolUse(in Input) error {
	switch {
	case in.ToolName == toolBash:
		return h.preBash(in)
	case builtinTools[in.ToolName]:
		return h.preBuiltin(in)
	}
	return nil
}

// preBash decides permission for the original command with the user's own
// rules; a command Claude Code would run anyway is rewritten to run
// supervised through `hangdog run --claude-code`. A call left alone carries
// the session's news as additional context.
func (h *Hook) preBash(in Input) error {
	s, err := openSession(h.Reg, in.SessionID)
	if err != nil {
		return err
	}
	command, _ := in.ToolInput["command"].(string)
	mode := h.Getenv(envPermission)
	if mode == "" {
		mode = "rules"
	}
	cwd := in.Cwd
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	project := h.Getenv("CLAUDE_PROJECT_DIR")
	if project == "" {
		project = cwd
	}
	d := decideNone
	if strings.TrimSpace(command) != "" {
		d = permission(command, cwd, project, in.PermissionMode, bashRules(project, h.Getenv, h.PPID), h.Getenv)
	}
	// Denied, or a rule asks: the command goes to Claude Code untouched,
	// which denies or asks with its own words, as without hangdog.
	if mode == "allow" && d == decideNone && in.PermissionMode != "plan" {
		d = decideAllow
	}
	background, _ := in.ToolInput["run_in_background"].(bool)
	wrap := strings.TrimSpace(command) != "" && !background &&
		(d == decideAllow || mode == "none" && d == decideNone) &&
		!stateCommand(command) && !callsHangdog(command, h.Bin) &&
		// Without hangdog to run, a rewrite would break every call.
		executable(h.Bin)
	out := hookOutput{HookEventName: "PreToolUse"}
	if !wrap {
		err := s.takeNews(func(evs []bgtasks.Event) error {
			out.AdditionalContext = newsBlock(evs)
			return h.answer(map[string]any{"hookSpecificOutput": out})
		})
		return err
	}
	updated := make(map[string]any, len(in.ToolInput))
	for k, v := range in.ToolInput {
		updated[k] = v
	}
	updated["command"] = h.rewrite(s, command, toolTimeoutMS(in.ToolInput["timeout"]), in.ToolUseID)
	out.UpdatedInput = updated
	if d == decideAllow {
		out.PermissionDecision = "allow"
		out.PermissionDecisionReason = "allowed by your permission rules; hangdog supervises it"
	}
	return h.answer(map[string]any{"hookSpecificOutput": out})
}

// toolTimeoutMS is the call's own timeout, else Claude Code's default.
func toolTimeoutMS(v any) int {
	if f, ok := v.(float64); ok && f > 0 {
		return int(f)
	}
	return defaultToolTimeoutMS
}

// rewrite is the command Claude Code runs instead: `hangdog run` with
// everything it needs, then a tail that moves Claude Code's shell to where
// the command's shell ended (only when it moved: hangdog leaves no file
// otherwise) and keeps the command's exit status. The call is handed back
// 10 s before Claude Code's own tool timeout would kill hangdog and the
// command with it.
func (h *Hook) rewrite(s *session, command string, timeoutMS int, toolUseID string) string {
	detach := max(5, timeoutMS/1000-10)
	name := Key(toolUseID)
	if toolUseID == "" {
		name = fmt.Sprintf("call-%d", os.Getpid())
	}
	cwdFile := filepath.Join(s.dir, name+".cwd")
	q := func(s string) string { return taskctl.ShellJoin([]string{s}) }
	f := q(cwdFile)
	return fmt.Sprintf("%s run --claude-code --session %s --detach-after %ds --cwd-file %s -- %s; "+
		"__hd=$?; if [ -s %s ]; then IFS= read -r __hd_cwd < %s; rm -f %s; cd -- \"$__hd_cwd\"; fi; "+
		"__hd_rc() { return \"$1\"; }; __hd_rc \"$__hd\"",
		q(h.Bin), q(s.owner()), detach, f, q(command), f, f, f)
}

// stateCommand is a lone cd/export-style command.
func stateCommand(command string) bool {
	parts, ok := splitCommand(command)
	if !ok || len(parts) != 1 {
		return false
	}
	return shellStateBuiltins[filepath.Base(strings.Fields(parts[0])[0])]
}

// executable says whether bin is a file that can be run.
func executable(bin string) bool {
	st, err := os.Stat(bin)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// callsHangdog says whether the command is hangdog itself.
func callsHangdog(command, bin string) bool {
	f := strings.Fields(command)
	if len(f) == 0 {
		return false
	}
	name := filepath.Base(f[0])
	return name == "hangdog" || name == filepath.Base(bin)
}
