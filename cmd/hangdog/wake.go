//go:build !lite

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/cchook"
	"github.com/hangdog/hangdog/fleet"
	"github.com/hangdog/hangdog/settings"
	"github.com/hangdog/hangdog/taskctl"
	"github.com/hangdog/hangdog/wake"
	"github.com/hangdog/hangdog/wake/fleetsource"
)

func init() { registerCommand(newWakeCmd) }

func newWakeCmd() *cobra.Command {
	var consumer, run, seen string
	var here, mine bool
	var from string
	var filter fleetsource.Filter
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
moves past the others).

--from nats://HOST:4222 takes the events of every sandbox of a fleet instead
(docs/fleet.md), from a JetStream durable consumer NAME of the stream
events.stream, on any machine: the same promises (one run at a time, the
stream acknowledged only after CMD exits 0, --seen after a crash), the ids
being the stream's seqs. --host, --project, --session and --kind keep to the
events of one sandbox, project, session or kind (the consumer's subject
filter). Credentials come from events.credentials or the environment
(NATS_CREDS, NATS_TOKEN, NATS_USER and NATS_PASSWORD), never from the URL:
the worker's command line is shown by ` + "`hangdog bg ls`" + `.`,
		Example: `  # a headless Claude Code session, resumed with the news as its prompt
  hangdog wake --consumer my-agent --run 'claude -p --resume "$SESSION" "$HANGDOG_WAKE_PROMPT"' \
    --seen 'grep -qsF "$HANGDOG_WAKE_MARK" ~/.claude/projects/*/"$SESSION".jsonl'
  # a Codex session
  hangdog wake --consumer my-agent --run 'codex exec resume "$SESSION" "$HANGDOG_WAKE_PROMPT" </dev/null' \
    --seen 'grep -rqsF "$HANGDOG_WAKE_MARK" ~/.codex/sessions'
  hangdog wake --consumer notes --run 'cat >> ~/events.log' --seen 'for id in $HANGDOG_EVENT_IDS; do grep -q "\"seq\":$id," ~/events.log || exit 1; done'
  # every sandbox's failures, on a control-plane machine
  hangdog wake --from nats://nats1:4222,nats://nats2:4222 --consumer ci-failures --kind exited --run './route-to-agent.sh'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if consumer == "" || run == "" {
				return fmt.Errorf("wake needs --consumer NAME and --run CMD, e.g. `hangdog wake --consumer my-agent --run 'cat >> events.log'`")
			}
			reg, err := openRegistry()
			if err != nil {
				return err
			}
			if from == "" && filter != (fleetsource.Filter{}) {
				return errors.New("--host, --project, --session and --kind filter the fleet's events: they need --from nats://HOST:4222 (a local consumer keeps to its session with --mine)")
			}
			var more []string
			if from != "" {
				if err := checkFrom(from, consumer); err != nil {
					return err
				}
				more = wakeFromArgs(from, filter)
			} else if _, err := reg.Undelivered(consumer); err != nil { // checks the name, registers the cursor
				return err
			}
			if !here {
				// Refused here, where the user sees it, not in the
				// background task (which claims the name for its life).
				if err := wake.Holder(reg, consumer); err != nil {
					return err
				}
				return startWakeTask(reg, cmd, consumer, run, seen, mine, more...)
			}
			w := &wake.Worker{Reg: reg, Consumer: consumer, Run: run, Seen: seen, Log: os.Stdout, Scope: bgtasks.Scope{All: true},
				Describe: cchook.Line}
			if mine {
				owner, project := watchCaller()
				w.Scope = bgtasks.Scope{Owner: owner, Project: project}
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
			defer stop()
			if from != "" {
				// Claimed before the stream is touched: a second worker
				// of this name must not reset the consumer under the first.
				release, err := wake.Claim(reg, consumer)
				if err != nil {
					return err
				}
				defer release()
				src, conn, err := openFleetSource(ctx, from, consumer, filter, os.Stdout)
				if err != nil || src == nil {
					return err // nil, nil: stopped while waiting for the cluster
				}
				defer conn.Close()
				w.Source = src
				w.Claimed = true
			}
			return w.Loop(ctx)
		},
	}
	f := cmd.Flags()
	f.StringVar(&consumer, "consumer", "", "the consumer whose new events are handed over (its cursor is in <home>/consumers)")
	f.StringVar(&run, "run", "", "bash command given each batch on stdin")
	f.StringVar(&seen, "seen", "", "bash command that exits 0 when the agent already handled the batch (after a crash)")
	f.BoolVar(&mine, "mine", false, "only the events of $HANGDOG_SESSION")
	f.StringVar(&from, "from", "", "NATS server URLs: take the fleet's events from its JetStream stream instead of this home's log")
	f.StringVar(&filter.Host, "host", "", "with --from: only the events of this sandbox (its events.host)")
	f.StringVar(&filter.Project, "project", "", "with --from: only the events of this project (a task's directory, as `hangdog events --json` shows it)")
	f.StringVar(&filter.Session, "session", "", "with --from: only the events of this session")
	f.StringVar(&filter.Kind, "kind", "", "with --from: only events of this kind (exited, watch_fired, …)")
	f.BoolVar(&here, "here", false, "run the worker in this process instead of as a background task")
	_ = f.MarkHidden("here") // wake.WorkerArgv's flag
	return cmd
}

func startWakeTask(reg *bgtasks.Registry, cmd *cobra.Command, consumer, run, seen string, mine bool, more ...string) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find hangdog's own path: %w", err)
	}
	argv := wake.WorkerArgv(self, consumer, run, seen, mine, more...)
	// Listed as the command a person would type: no path, no --here.
	display := taskctl.ShellJoin(slices.DeleteFunc(append([]string{"hangdog"}, argv[1:]...), func(a string) bool { return a == "--here" }))
	taskID, err := startBackgroundTask(reg, argv, display, false)
	if err != nil {
		return err
	}
	fmt.Fprintln(cmd.OutOrStdout(), taskID)
	return nil
}

// wakeFromArgs are wake --from's flags as the background worker gets them.
func wakeFromArgs(from string, f fleetsource.Filter) []string {
	args := []string{"--from", from}
	for _, kv := range [][2]string{{"--host", f.Host}, {"--project", f.Project}, {"--session", f.Session}, {"--kind", f.Kind}} {
		if kv[1] != "" {
			args = append(args, kv[0], kv[1])
		}
	}
	return args
}

// checkFrom refuses a --from the worker cannot use, and a consumer name
// JetStream would refuse. Credentials in the URL are refused too: the
// worker's command line is listed by `hangdog bg ls` and ps.
func checkFrom(from, consumer string) error {
	if _, err := settings.Validate("events.sink", from); err != nil {
		return fmt.Errorf("--from: %w", err)
	}
	for _, one := range strings.Split(from, ",") {
		if u, err := url.Parse(strings.TrimSpace(one)); err == nil && u.User != nil {
			return fmt.Errorf("--from %s carries credentials, which `hangdog bg ls` would show: put them in a file named by events.credentials, or in NATS_TOKEN (or NATS_USER and NATS_PASSWORD)", fleet.Redact(from))
		}
	}
	if len(consumer) > 64 || strings.IndexFunc(consumer, func(r rune) bool {
		return !(r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) >= 0 {
		return fmt.Errorf("--consumer %q: with --from, use 1-64 letters, digits, '_' or '-' (it names a JetStream durable consumer)", consumer)
	}
	return nil
}

// openFleetSource connects to the cluster and opens the durable consumer,
// trying again while the cluster cannot be reached (a worker started
// during an outage waits for it). nil, nil: ctx ended first.
func openFleetSource(ctx context.Context, from, consumer string, filter fleetsource.Filter, log io.Writer) (*fleetsource.Source, *fleet.Conn, error) {
	st, err := settings.Load(settings.Options{KeepGoing: true})
	if err != nil {
		return nil, nil, err
	}
	cfg := fleet.FromSettings(st.Events())
	cfg.URLs, cfg.Name = from, "hangdog wake "+consumer
	logf := func(msg string) {
		fmt.Fprintln(log, time.Now().UTC().Format(time.RFC3339)+" wake "+consumer+": "+msg)
	}
	wait, last := 100*time.Millisecond, ""
	for {
		conn, err := fleet.Connect(cfg)
		if err == nil {
			var src *fleetsource.Source
			if src, err = fleetsource.Open(ctx, conn, consumer, filter); err == nil {
				src.Log = logf
				logf("taking events from stream " + cfg.Stream + " at " + fleet.Redact(from))
				return src, conn, nil
			}
			conn.Close()
		}
		if err.Error() != last {
			last = err.Error()
			logf(fmt.Sprintf("%v; trying again", err))
		}
		select {
		case <-ctx.Done():
			return nil, nil, nil
		case <-time.After(wait):
		}
		wait = min(2*wait, 5*time.Second)
	}
}
