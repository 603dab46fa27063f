//go:build !lite

package main

import (
	"errors"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/hangdog/hangdog/cchook"
	"github.com/hangdog/hangdog/mcpserver"
)

func init() { registerCommand(newMCPCmd) }

func newMCPCmd() *cobra.Command {
	var consumer string
	var maxWait time.Duration
	var outputLimit int
	var carryExports, structured bool
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: mcpShort,
		Long: `Run a Model Context Protocol server on stdin/stdout for an AI agent's harness
(Claude Code, Codex, any MCP client). Its tools: bash (run a command
supervised); bg_tasks, bg_logs, bg_send, bg_wait, bg_kill and bg_detach for
background tasks; watch_create, watch_list, watch_pause, watch_resume and
watch_delete for watchers and trigger links; approve_create for approval links.

A bash call that gets stuck, loops, or waits for input nobody will type comes
back early with the task id, the reason and the output so far; the command
keeps running in the background. An explicit timeout_seconds that passes
detaches the call too, and so does --max-wait (default ` + mcpserver.DefaultMaxWait.String() + `, below the 60 s
after which most clients give up on a call); nothing is killed by a timeout.
A call the client cancels because it gave up waiting is detached too; one a
person cancels (Esc) stops its command, as Ctrl-C would.

Background tasks' completions, detaches, kills and warnings are put at the
top of the session's next tool result, each once. The session is a consumer
of the event log (` + "`hangdog events`" + `); its cursor moves only after the result
carrying an event has been written, so a crash can repeat an event, never
lose one. Each session gets a fresh consumer name unless --consumer is given:
pass the same name to keep the cursor across restarts of the harness. Started
by Claude Code (` + "`$" + claudeSessionEnv + "`" + ` set), the session is that Claude Code
session's, claude-<session id>, the one hangdog's hooks use: its tasks are
the session's, the Stop hook waits for those that end by themselves, and the
model is told each event once, whichever of them tells it.

Within a session, a bash call with no cwd runs in the directory the previous
call ended in (cd carries over); --carry-exports carries its exports too.
--structured adds an outputSchema to every tool and structuredContent to
every result.`,
		Example: `  claude mcp add hangdog -- hangdog mcp
  hangdog mcp --max-wait 100s         # a client that waits 120 s for a call (tool_timeout_sec = 120)
  hangdog mcp --max-wait 0            # calls block until the command ends or is detached by the watchdog
  hangdog mcp --consumer my-harness   # keep the notification cursor across restarts`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			reg, err := openRegistry()
			if err != nil {
				return err
			}
			// Under Claude Code, the session is Claude Code's: the hooks'
			// consumer, so one cursor says what the model was told,
			// whichever told it, and the tasks its calls leave running are
			// recorded for the Stop hook. (A session name of
			// $HANGDOG_SESSION may be no valid consumer name.)
			var leftRunning func(taskID, command, wait, reason string, started bool) error
			if id := os.Getenv(claudeSessionEnv); consumer == "" && id != "" {
				consumer = claudeSession()
				leftRunning = func(taskID, command, wait, reason string, started bool) error {
					return cchook.NoteLeftRunning(reg, id, taskID, command, wait, reason, started)
				}
			}
			srv, err := mcpserver.New(mcpserver.Config{
				Registry: reg,
				Consumer: consumer,
				// The release's stamped version; empty in other builds,
				// where mcpserver reads the module version.
				Version:      releaseVersion,
				MaxWait:      maxWait,
				OutputLimit:  outputLimit,
				CarryExports: carryExports,
				Structured:   structured,
				LeftRunning:  leftRunning,
				Log:          os.Stderr,
			})
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
			defer stop()
			err = srv.Run(ctx, &mcpserver.StdioTransport{In: os.Stdin, Out: os.Stdout}) // answers malformed lines, flushes replies at EOF
			// The client closing stdin, or a signal, is how a session ends.
			if ctx.Err() != nil || errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) {
				return nil
			}
			return err
		},
	}
	cmd.Flags().StringVar(&consumer, "consumer", "", "event-log consumer name for this session's notifications (default: under Claude Code its session's, claude-<session id>; else a fresh mcp-<pid>-<time> name)")
	cmd.Flags().BoolVar(&structured, "structured", false, "give every tool an outputSchema and every result structuredContent (status, exit_code, task_id, output…), for a harness that reads fields; Claude Code and Codex then show the model the JSON instead of the text")
	cmd.Flags().BoolVar(&carryExports, "carry-exports", false, "set the variables a bash call exports again in the session's later calls (the cwd always carries over)")
	cmd.Flags().DurationVar(&maxWait, "max-wait", mcpserver.DefaultMaxWait, "longest a tool call may block: a bash call still running then is detached, bg_wait returns; keep it below your client's tool timeout (0: no limit)")
	cmd.Flags().IntVar(&outputLimit, "output-limit", mcpserver.DefaultOutputLimit, "bytes of plain-text output per tool result; longer output is cut in the middle")
	return cmd
}
