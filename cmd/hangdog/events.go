package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/internal/termtext"
	"github.com/hangdog/hangdog/taskctl"
)

func init() { registerCommand(newEventsCmd) }

func newEventsCmd() *cobra.Command {
	var follow, asJSON, all bool
	var session string
	var since int64
	var consumer string
	var wait time.Duration
	cmd := &cobra.Command{
		Use:   "events",
		Short: "Show what happened to tasks: completions, detaches, kills, warnings",
		Long: `Print the event log, one line per event, oldest first:

  #12 2026-11-29 10:01:02 t4 exited 1 after 212s: npm test

Kinds: exited (the command ended by itself), killed (hangdog stopped it, with
the reason), detached (moved to the background, with the reason), warning (the
watchdog's note about a task left running) and lost (its supervisor died
without recording a result).

--consumer NAME prints only the events NAME has not been given yet and marks
them delivered once they are written (a crash may repeat an event, never lose
one); a new consumer starts at the current end of the log. With --wait D it
blocks up to D until such an event arrives — for a harness hook that must wake
an agent when its background work finishes.

It shows the events of this call's session (--session, $HANGDOG_SESSION) or,
without one, of this directory's project (its git top level, else the
directory); --all shows everyone's. A consumer skips the others' events
for good: its cursor moves past them.

--since SEQ prints only events after #SEQ; --follow keeps printing new events
as they happen until interrupted; --json prints each event as one JSON object
per line, with the output tail it carries.`,
		Example: `  hangdog events
  hangdog events --since 40
  hangdog events --follow
  hangdog events --consumer claude-code --wait 10m --json
  hangdog events --json | jq -r 'select(.kind == "exited") | .task_id'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if since < 0 {
				return fmt.Errorf("--since %d: use an event number (0 for all events)", since)
			}
			reg, err := openRegistry()
			if err != nil {
				return err
			}
			scope, err := callerScope(session, all)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if consumer != "" {
				ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
				defer stop()
				return deliverEvents(ctx, reg, consumer, wait, scope.SeesEvent, func(e bgtasks.Event) error { return writeEvent(out, e, asJSON) })
			}
			emitTo := func(w io.Writer) func(bgtasks.Event) error {
				return func(e bgtasks.Event) error {
					if !scope.SeesEvent(e) {
						return nil
					}
					return writeEvent(w, e, asJSON)
				}
			}
			if wait != 0 {
				return errors.New("--wait needs --consumer NAME: it waits for events that consumer has not seen")
			}
			if follow {
				ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
				defer stop()
				err := reg.FollowEvents(ctx, since, emitTo(out))
				if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
					return nil // interrupted: the normal way to stop following
				}
				return err
			}
			// Streamed, so a long log costs no more memory than one event.
			bw := bufio.NewWriterSize(out, 64<<10)
			if err := reg.ScanEvents(since, emitTo(bw)); err != nil {
				return err
			}
			return bw.Flush()
		},
	}
	cmd.Flags().BoolVarP(&follow, "follow", "f", false, "keep printing new events until interrupted")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print each event as a JSON object on its own line")
	cmd.Flags().Int64Var(&since, "since", 0, "print only events after this event number")
	cmd.Flags().StringVar(&consumer, "consumer", "", "print the events this consumer has not been given yet, and mark them delivered")
	cmd.Flags().DurationVar(&wait, "wait", 0, "with --consumer: wait up to this long for an undelivered event")
	cmd.Flags().BoolVarP(&all, "all", "a", false, "show every session's and project's events")
	addSessionFlag(cmd, &session)
	return cmd
}

// deliverEvents writes a consumer's undelivered events that keep holds for,
// waiting up to wait for the first, and moves its cursor only after they are
// written (past the others too, which it never writes).
func deliverEvents(ctx context.Context, reg *bgtasks.Registry, consumer string, wait time.Duration, keep func(bgtasks.Event) bool, emit func(bgtasks.Event) error) error {
	deadline := time.Now().Add(wait)
	for {
		// Under the consumer's lock from reading to moving the cursor, so
		// readers sharing a name do not each deliver the same events.
		delivered := false
		err := reg.WithConsumer(consumer, func() error {
			evs, err := reg.Undelivered(consumer)
			if err != nil || len(evs) == 0 {
				return err
			}
			for _, e := range evs {
				if !keep(e) {
					continue
				}
				delivered = true
				if err := emit(e); err != nil {
					return err
				}
			}
			return reg.MarkDelivered(consumer, evs[len(evs)-1].Seq)
		})
		if err != nil || delivered {
			return err
		}
		if !time.Now().Before(deadline) {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(min(200*time.Millisecond, time.Until(deadline))):
		}
	}
}

func writeEvent(w io.Writer, e bgtasks.Event, asJSON bool) error {
	if asJSON {
		line, err := json.Marshal(e)
		if err != nil {
			return fmt.Errorf("encode event %d: %w", e.Seq, err)
		}
		_, err = w.Write(append(line, '\n'))
		return err
	}
	_, err := io.WriteString(w, eventLine(e)+"\n")
	return err
}

// eventLine is an event for people:
// "#12 2026-11-29 10:01:02 t4 exited 1 after 212s (reason): npm test".
// Every text field is untrusted and made safe for a terminal.
func eventLine(e bgtasks.Event) string {
	var b strings.Builder
	fmt.Fprintf(&b, "#%d %s %s %s", e.Seq, e.Time.Local().Format(time.DateTime), strings.TrimSpace(termtext.OneLine(e.TaskID)), strings.TrimSpace(termtext.OneLine(e.Kind)))
	switch {
	case e.Signal != "" && e.Kind == bgtasks.EventKilled:
		b.WriteString(" by " + strings.TrimSpace(termtext.OneLine(e.Signal)))
	case e.Signal != "":
		b.WriteString(" on " + strings.TrimSpace(termtext.OneLine(e.Signal)))
	case e.ExitCode != nil && (e.Kind == bgtasks.EventExited || e.Kind == bgtasks.EventKilled):
		b.WriteString(" " + strconv.Itoa(*e.ExitCode))
	}
	if e.DurationMS > 0 {
		b.WriteString(" after " + taskctl.Compact.Format(time.Duration(e.DurationMS)*time.Millisecond))
	}
	if r := strings.TrimSpace(termtext.OneLine(e.Reason)); r != "" {
		b.WriteString(" (" + r + ")")
	}
	if c := strings.TrimSpace(termtext.OneLine(e.Command)); c != "" {
		b.WriteString(": " + c)
	}
	return b.String()
}
