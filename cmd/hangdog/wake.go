//go:build !lite

package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/taskctl"
	"github.com/hangdog/hangdog/wake"
)

func init() { registerCommand(newWakeCmd) }

func newWakeCmd() *cobra.Command {
	var consumer, run, seen string
	var here, mine bool
	cmd := &cobra.Command{
		Use:   "wake --consumer NAME --run CMD [--seen CMD]",
		Short: "Hand new events to a command that wakes an idle agent, one batch at a time",
		Long: `Start a worker, itself a background task (` + "`hangdog bg ls`" + ` lists it, ` + "`bg kill`" + ` stops
it), that waits for events the consumer NAME has not been given and hands each
batch to CMD (run by bash): the events on stdin, one JSON object per line, and
their ids in $HANGDOG_EVENT_IDS. One run at a time; the consumer's cursor moves
only when CMD exits 0 (a failing CMD gets the batch again later).

After a kill -9 at any point no batch is handed over twice when the record
(<home>/wake/NAME.json) shows it was handled; a run cut short is asked about
with --seen CMD (same stdin and $HANGDOG_EVENT_IDS; exit 0 means the agent
already has them) and otherwise handed over again: at-least-once.

--mine hands over only the events of $HANGDOG_SESSION (the cursor still
moves past the others).`,
		Example: `  hangdog wake --consumer my-agent --run 'claude -p --resume "$SESSION" "$(cat)"'
  hangdog wake --consumer notes --run 'cat >> ~/events.log' --seen 'for id in $HANGDOG_EVENT_IDS; do grep -q "\"seq\":$id," ~/events.log || exit 1; done'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if consumer == "" || run == "" {
				return fmt.Errorf("wake needs --consumer NAME and --run CMD, e.g. `hangdog wake --consumer my-agent --run 'cat >> events.log'`")
			}
			reg, err := openRegistry()
			if err != nil {
				return err
			}
			if _, err := reg.Undelivered(consumer); err != nil { // checks the name, registers the cursor
				return err
			}
			if !here {
				return startWakeTask(reg, cmd, consumer, run, seen, mine)
			}
			w := &wake.Worker{Reg: reg, Consumer: consumer, Run: run, Seen: seen, Log: os.Stdout, Scope: bgtasks.Scope{All: true}}
			if mine {
				owner, project := watchCaller()
				w.Scope = bgtasks.Scope{Owner: owner, Project: project}
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
			defer stop()
			return w.Loop(ctx)
		},
	}
	f := cmd.Flags()
	f.StringVar(&consumer, "consumer", "", "the consumer whose new events are handed over (its cursor is in <home>/consumers)")
	f.StringVar(&run, "run", "", "bash command given each batch on stdin")
	f.StringVar(&seen, "seen", "", "bash command that exits 0 when the agent already handled the batch (after a crash)")
	f.BoolVar(&mine, "mine", false, "only the events of $HANGDOG_SESSION")
	f.BoolVar(&here, "here", false, "run the worker in this process instead of as a background task")
	_ = f.MarkHidden("here")
	return cmd
}

func startWakeTask(reg *bgtasks.Registry, cmd *cobra.Command, consumer, run, seen string, mine bool) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find hangdog's own path: %w", err)
	}
	argv := []string{self, "wake", "--here", "--consumer", consumer, "--run", run}
	if seen != "" {
		argv = append(argv, "--seen", seen)
	}
	if mine {
		argv = append(argv, "--mine")
	}
	// Listed as the command a person would type: no path, no --here.
	display := taskctl.ShellJoin(slices.DeleteFunc(append([]string{"hangdog"}, argv[1:]...), func(a string) bool { return a == "--here" }))
	taskID, err := startBackgroundTask(reg, argv, display, false)
	if err != nil {
		return err
	}
	fmt.Fprintln(cmd.OutOrStdout(), taskID)
	return nil
}
