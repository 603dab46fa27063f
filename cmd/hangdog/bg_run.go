package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/taskctl"
)

func init() { registerBgCommand(newBgRunCmd) }

func newBgRunCmd() *cobra.Command {
	var f taskFlags
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "run [flags] -- COMMAND [ARGS...]",
		Short: "Start a command in the background and print its task id",
		Long: `Start a command as a background task: it runs under its own supervisor with
a pseudo-terminal, its output goes to the task's log, and hangdog returns at
once, printing the task id on stdout. Its completion is recorded as an event
(` + "`hangdog events`" + `).`,
		Example: `  id=$(hangdog bg run -- npm run dev)
  hangdog bg run 'make -j8 2>&1 | tee build.txt'
  hangdog bg logs "$id" -f`,
		RunE: func(cmd *cobra.Command, args []string) error {
			pending, err := prestart()
			if err != nil {
				return err
			}
			spec, err := buildSpec(args, f, bgtasks.Background)
			if err != nil {
				pending.Cancel()
				return err
			}
			reg, err := openRegistry()
			if err != nil {
				pending.Cancel()
				return err
			}
			link, err := pending.Start(reg, spec)
			if err != nil {
				return err
			}
			defer link.Close()
			ev, err := link.Next()
			if err != nil {
				return fmt.Errorf("task %s: %w; see %s", link.TaskID, err, link.SupervisorLogPath())
			}
			if ev.Kind == taskctl.EventFailed {
				return fmt.Errorf("could not start the command: %s", ev.Message)
			}
			if asJSON {
				return json.NewEncoder(os.Stdout).Encode(map[string]any{"task_id": link.TaskID, "pid": ev.PID, "status": "running"})
			}
			fmt.Println(link.TaskID)
			if term.IsTerminal(int(os.Stderr.Fd())) {
				fmt.Fprintf(os.Stderr, "started %s (pid %d): follow it with `hangdog bg logs %s -f`\n", link.TaskID, ev.PID, link.TaskID)
			}
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"task_id", "pid", "status"} as JSON`)
	return cmd
}
