package main

import (
	"os"
	"os/exec"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hangdog/hangdog/cchook"
	"github.com/hangdog/hangdog/taskctl"
)

func init() { registerCommand(newHookCmd) }

func newHookCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "hook",
		Short: "Serve Claude Code's hooks: reads the hook's JSON on stdin (settings.json or the plugin runs it)",
		Long: `Answer one Claude Code hook call: the JSON Claude Code writes on stdin is
dispatched on its hook_event_name.

  SessionStart  the session's event consumer starts at the end of the log
  PreToolUse    Bash: permission as your Claude Code rules decide it; a call
                they allow is rewritten to run supervised by hangdog run
                (its cwd carried back to Claude Code's shell, the session's
                news above its output); other calls carry the news as
                additional context. WebFetch, WebSearch, Task, Agent: when
                the call started
  PostToolUse   WebFetch, WebSearch, Task, Agent: one that took over
                ` + taskctl.Spoken.Format(cchook.SlowBuiltinAfter) + ` is named in the next context
  Stop          the news of the session's own tasks, once, as additional
                context; waits up to $HANGDOG_STOP_WAIT (` + taskctl.Spoken.Format(cchook.DefaultStopWait) + `) for the
                tasks its calls left running that can end by themselves
  SessionEnd    tasks.onSessionEnd for the session's tasks (kill by default)

hangdog's MCP bash needs no hook per call: hangdog mcp started by Claude Code
is that session's (its tasks and news are the session's own).

Environment: HANGDOG_PERMISSION (rules, allow, none), HANGDOG_STOP_WAIT,
HANGDOG_HOOK_SET ("key=value ..." for supervised calls), HANGDOG_AGENT_PROFILE
(off keeps TERM and colours), HANGDOG_BIN (the hangdog a rewritten call runs).`,
		Example: `  # ~/.claude/settings.json: "command": "hangdog hook" for each event
  echo '{"hook_event_name":"SessionStart","session_id":"s1"}' | hangdog hook`,
		Args: cobra.ArbitraryArgs, // `hangdog hook EVENT`: the event is read from the JSON
		RunE: func(cmd *cobra.Command, args []string) error {
			reg, err := openRegistry()
			if err != nil {
				return err
			}
			// The hangdog a rewritten call runs: $HANGDOG_BIN (a name is
			// looked up on PATH), else this one.
			bin := os.Getenv("HANGDOG_BIN")
			if bin != "" && !strings.ContainsRune(bin, '/') {
				if p, err := exec.LookPath(bin); err == nil {
					bin = p
				}
			}
			if bin == "" {
				if bin, err = os.Executable(); err != nil {
					bin = "hangdog"
				}
			}
			h := &cchook.Hook{Reg: reg, Bin: bin, Getenv: os.Getenv, PPID: os.Getppid(), Stdout: os.Stdout, Stderr: os.Stderr}
			if code := h.Handle(cmd.Context(), os.Stdin); code != 0 {
				return exitCode(code)
			}
			return nil
		},
	}
}
