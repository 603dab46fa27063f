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
	"github.com/hangdog/hangdog/cchook"
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
batch to CMD (run by bash): the events on stdin, one JSON object per line;
their ids in $HANGDOG_EVENT_IDS; the batch's mark, a word such as
hangdog-wake-NAME-7-9, in $HANGDOG_WAKE_MARK; and the batch as a prompt for a
model (the mark, who sends it, one line per event) in $HANGDOG_WAKE_PROMPT.
One run at a time; the consumer's cursor moves only when CMD exits 0 (a
failing CMD gets the batch again later). The end of a wake worker's own task
is never handed over.

A run outlives a worker killed -9 (the agent's turn is not cut short), and
the next worker counts its batch by its exit status: handed over once. When
the record (<home>/wake/NAME.json) shows a batch handled it is not handed
over again. A run itself cut short is asked about with --seen CMD (same
stdin and environment; exit 0 means the agent already has the batch: grep
its transcript for $HANGDOG_WAKE_MARK) and otherwise handed over again:
at-least-once.

--mine hands over only the events of $HANGDOG_SESSION (the cursor still
moves past the others).`,
		Example: `  # a headless Claude Code session, resumed with the news as its prompt
  hangdog wake --consumer my-agent --run 'claude -p --resume "$SESSION" "$HANGDOG_WAKE_PROMPT"' \
    --seen 'grep -qsF "$HANGDOG_WAKE_MARK" ~/.claude/projects/*/"$SESSION".jsonl'
  # a Codex session
  hangdog wake --consumer my-agent --run 'codex exec resume "$SESSION" "$HANGDOG_WAKE_PROMPT" </dev/null' \
    --seen 'grep -rqsF "$HANGDOG_WAKE_MARK" ~/.codex/sessions'
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
				// Refused here, where the user sees it, not in the
				// background task (which claims the name for its life).
				if err := wake.Holder(reg, consumer); err != nil {
					return err
				}
				return startWakeTask(reg, cmd, consumer, run, seen, mine)
			}
			w := &wake.Worker{Reg: reg, Consumer: consumer, Run: run, Seen: seen, Log: os.Stdout, Scope: bgtasks.Scope{All: true},
				Describe: cchook.Line}
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
	_ = f.MarkHidden("here") // wake.WorkerArgv's flag
	return cmd
}

func startWakeTask(reg *bgtasks.Registry, cmd *cobra.Command, consumer, run, seen string, mine bool) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find hangdog's own path: %w", err)
	}
	argv := wake.WorkerArgv(self, consumer, run, seen, mine)
	// Listed as the command a person would type: no path, no --here.
	display := taskctl.ShellJoin(slices.DeleteFunc(append([]string{"hangdog"}, argv[1:]...), func(a string) bool { return a == "--here" }))
	taskID, err := startBackgroundTask(reg, argv, display, false)
	if err != nil {
		return err
	}
	fmt.Fprintln(cmd.OutOrStdout(), taskID)
	return nil
}
