package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

func init() {
	registerBgCommand(newBgRmCmd)
	registerBgCommand(newBgPruneCmd)
}

func newBgRmCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "rm ID...",
		Short: "Delete ended tasks and their output",
		Long: `Delete ended tasks: their directory, output log and result. A running task is
refused (stop it first with ` + "`hangdog bg kill`" + `). Task ids are never reused, so a
later task cannot be mistaken for a removed one. Events about removed tasks stay
in the event log.

Each removed id is printed; every id that could not be removed gets one line on
stderr and the exit code is 125.`,
		Example: `  hangdog bg rm t3
  hangdog bg rm t3 t4 t7`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			reg, err := openRegistry()
			if err != nil {
				return err
			}
			failed := 0
			for _, id := range args {
				if err := reg.Remove(id); err != nil {
					failed++
					fmt.Fprintln(cmd.ErrOrStderr(), "hangdog:", err)
					continue
				}
				fmt.Fprintln(cmd.OutOrStdout(), "removed", id)
			}
			if failed > 0 {
				return exitCode(exitHangdogError)
			}
			return nil
		},
	}
}

func newBgPruneCmd() *cobra.Command {
	var olderThan time.Duration
	cmd := &cobra.Command{
		Use:   "prune",
		Short: "Delete ended tasks, or those that ended a while ago",
		Long: `Delete every ended task (exited, killed or lost) with its output, or with
--older-than only those that ended at least that long ago. Running tasks are
never touched.`,
		Example: `  hangdog bg prune
  hangdog bg prune --older-than 24h`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if olderThan < 0 {
				return fmt.Errorf("--older-than %s: use a positive duration such as 1h or 7d as 168h", olderThan)
			}
			reg, err := openRegistry()
			if err != nil {
				return err
			}
			removed, err := reg.Prune(olderThan)
			switch {
			case len(removed) == 0 && err == nil:
				fmt.Fprintln(cmd.OutOrStdout(), "nothing to prune")
			case len(removed) > 0:
				fmt.Fprintf(cmd.OutOrStdout(), "pruned %d: %s\n", len(removed), strings.Join(removed, " "))
			}
			return err
		},
	}
	cmd.Flags().DurationVar(&olderThan, "older-than", 0, "only tasks that ended at least this long ago (e.g. 1h, 72h); 0: every ended task")
	return cmd
}
