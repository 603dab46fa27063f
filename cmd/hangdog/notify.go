package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/cchook"
)

func init() { registerCommand(newNotifyCmd) }

// notifyPoll is how often notify looks for a Claude Code session's news
// (a stat of the event log and a read of what is new).
const notifyPoll = 200 * time.Millisecond

func newNotifyCmd() *cobra.Command {
	var session, consumer string
	cmd := &cobra.Command{
		Use:   "notify [--session NAME]",
		Short: "Tell a live agent session its events as they happen, one line each (Claude Code's plugin monitor)",
		Long: `Print the session's events as they happen, one line per event, until
interrupted: a background task's end or loss, a watchdog's warning, a
watcher's fire, pause or expiry, an approval's decision. (A detach is told by
the call it returns, not again here.) A harness that turns each line of a command's
output into a message for its model runs it for the length of a session:
Claude Code's plugin monitor does (the hangdog plugin declares it), and an
idle session then starts a new turn to read the news, with nobody typing.

Each event is printed once, and the session's cursor moves only after its
line is written: an event that happens while no session listens (Claude Code
closed, the monitor not started yet) waits for the next notify of the same
session, also across a restart (claude --resume, --continue). The consumer is
the session's name (--consumer changes it); ` + "`hangdog events --consumer`" + ` and the
Claude Code hooks take news from the same consumer, so nothing is told twice.

The session is --session, else $HANGDOG_SESSION, else inside Claude Code
claude-$CLAUDE_CODE_SESSION_ID (what the calls of that session are owned by).
Quoted output, payloads and comments are untrusted text and say so.`,
		Example: `  hangdog notify                       # inside Claude Code: this session's events
  hangdog notify --session build-42    # a harness's own session`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			owner, err := callerSession(session)
			if err != nil {
				return err
			}
			if owner == "" {
				return fmt.Errorf("notify needs the session whose events to tell: --session NAME, $%s, or run it inside Claude Code ($%s)", sessionEnv, claudeSessionEnv)
			}
			reg, err := openRegistry()
			if err != nil {
				return err
			}
			// Inside Claude Code, with no other session named: the Claude
			// Code session's news, as its hooks take it.
			claudeID := os.Getenv(claudeSessionEnv)
			viaHooks := session == "" && os.Getenv(sessionEnv) == "" && claudeID != "" && consumer == ""
			if consumer == "" {
				consumer = consumerName(owner)
			}
			// Registered now: events from here on wait for this session
			// even before the first one arrives.
			if _, err := reg.Undelivered(consumer); err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
			defer stop()
			out := cmd.OutOrStdout()
			tell := func(e bgtasks.Event) error {
				_, err := io.WriteString(out, cchook.Line(e)+"\n")
				return err
			}
			for ctx.Err() == nil {
				if !viaHooks {
					if err := takeSessionNews(ctx, reg, owner, consumer, time.Hour, tell); err != nil {
						return err
					}
					continue
				}
				err := cchook.TakeNews(reg, claudeID, func(evs []bgtasks.Event) error {
					for _, e := range evs {
						if err := tell(e); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					return err
				}
				select {
				case <-ctx.Done():
				case <-time.After(notifyPoll):
				}
			}
			return nil
		},
	}
	addSessionFlag(cmd, &session)
	cmd.Flags().StringVar(&consumer, "consumer", "", "the event-log consumer whose cursor says what was told (default: the session's name)")
	return cmd
}

// takeSessionNews hands emit the session's events not yet told, waiting up
// to wait for the first, and marks them told once emit returned. The one
// cursor is the consumer (consumerName(session) unless named): notify, the
// Claude Code hooks and events --consumer share it, so an event reaches a
// session once whichever way it goes. A detach is left out: the call it
// returned told it.
func takeSessionNews(ctx context.Context, reg *bgtasks.Registry, session, consumer string, wait time.Duration, emit func(bgtasks.Event) error) error {
	if consumer == "" {
		consumer = consumerName(session)
	}
	scope := bgtasks.Scope{Owner: session}
	keep := func(e bgtasks.Event) bool { return e.Kind != bgtasks.EventDetached && scope.SeesEvent(e) }
	return deliverEvents(ctx, reg, consumer, wait, keep, emit)
}

// consumerName is a session's name as an event-log consumer: the
// characters a consumer name cannot hold become '-'.
func consumerName(session string) string {
	return strings.Map(func(r rune) rune {
		if r == ':' || r == '@' {
			return '-'
		}
		return r
	}, session)
}
