package main

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/hangdog/hangdog/settings"
	"github.com/hangdog/hangdog/taskctl"
)

func init() { registerBgCommand(newBgEndSessionCmd) }

func newBgEndSessionCmd() *cobra.Command {
	var session string
	var grace time.Duration
	cmd := &cobra.Command{
		Use:   "end-session",
		Short: "Say a session has ended: its running tasks and watchers are ended or kept, as tasks.onSessionEnd says",
		Long: `Tell hangdog that a session (--session, $HANGDOG_SESSION) has ended, for a
harness's end-of-session hook (Claude Code's SessionEnd). With
tasks.onSessionEnd: kill (the default) every task of that session still
running is stopped with everything it started — SIGTERM, then SIGKILL after
--grace — and every active watcher and link it made is paused, saying why, so
no dev server, watcher or approval page an agent left behind runs on with
nobody to hear of it; with keep they run on. The MCP server does the same by
itself when its client goes away. Prints what it stopped.`,
		Example: `  hangdog bg end-session --session claude-4f1c
  HANGDOG_SESSION=build-42 hangdog bg end-session`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			name, err := callerSession(session)
			if err != nil {
				return err
			}
			if name == "" {
				return errors.New("end-session needs the session: --session NAME or $" + sessionEnv)
			}
			wd, err := os.Getwd()
			if err != nil {
				return fmt.Errorf("find the current directory: %w", err)
			}
			st, err := settings.Load(settings.Options{Dir: wd, KeepGoing: true})
			if err != nil {
				return err
			}
			reg, err := openRegistry()
			if err != nil {
				return err
			}
			// Its watchers and links first, as the MCP server does: paused
			// saying why, their runners end by themselves.
			if err := endSessionWatchers(cmd, reg, name, st.OnSessionEnd()); err != nil {
				return err
			}
			killed, err := taskctl.EndSession(cmd.Context(), reg, name, st.OnSessionEnd(), grace)
			for _, k := range killed {
				fmt.Fprintf(cmd.OutOrStdout(), "%s %s: %s\n", k.Task.ID, taskctl.DescribeEnd(&k.Result, taskctl.TerseWords{}), k.Task.Command)
			}
			if err == nil && st.OnSessionEnd() == taskctl.SessionEndKeep {
				fmt.Fprintf(cmd.ErrOrStderr(), "session %s ended; its tasks keep running (tasks.onSessionEnd: keep)\n", name)
			}
			return err
		},
	}
	addSessionFlag(cmd, &session)
	cmd.Flags().DurationVar(&grace, "grace", 5*time.Second, "how long each task has after SIGTERM before SIGKILL")
	return cmd
}
