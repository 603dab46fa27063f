//go:build !lite

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/internal/hiddenarg"
	"github.com/hangdog/hangdog/internal/termtext"
	"github.com/hangdog/hangdog/settings"
	"github.com/hangdog/hangdog/supervisor/proto"
	"github.com/hangdog/hangdog/taskctl"
	"github.com/hangdog/hangdog/watch"
	"github.com/hangdog/hangdog/watchctl"
)

// The watch commands and the hidden __watch runner (what runs the watchers
// where hangdog-watch, runner.Program, is not installed) live in
// the full build only: the watch package links net/http, an XML parser and
// regexps that `hangdog run` must not pay for. The lite hangdog hands them
// over (watch_lite.go).

func init() {
	registerCommand(newWatchCmd)
	registerCommand(newWatchRunnerCmd)
}

// watchCaller is who is asking: the session (owner) and the project.
func watchCaller() (owner, project string) {
	cwd, _ := os.Getwd()
	owner, _ = envSession()
	return owner, bgtasks.ProjectOf(cwd)
}

// cliCaller is who runs this watch command: its session and project, and
// whether a person runs it — at a terminal and outside any hangdog task.
// An agent's command runs inside a task (an MCP session's bash tool, even
// on a PTY) or without a terminal (a harness's own shell tool), so the
// owner check still keeps one agent from another's watchers.
func cliCaller() watchctl.Caller {
	owner, project := watchCaller()
	person := os.Getenv(proto.TaskIDEnv) == "" && term.IsTerminal(int(os.Stdin.Fd()))
	return watchctl.Caller{Owner: owner, Project: project, Person: person}
}

// openWatchers opens the watcher service with this directory's settings,
// saying what in them was left out.
func openWatchers() (*watchctl.Service, error) {
	reg, err := openRegistry()
	if err != nil {
		return nil, err
	}
	svc, err := watchctl.Open(reg, watchctl.Options{})
	if err != nil {
		return nil, err
	}
	warnings, err := svc.Warnings()
	if err != nil {
		return nil, err
	}
	for _, w := range warnings {
		fmt.Fprintf(os.Stderr, "hangdog: warning: %v\n", w)
	}
	return svc, nil
}

func newWatchCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "watch",
		Short: "Watchers: be told once when a file, URL, feed, process or command changes",
		Long: `A watcher is a standing request: "when this changes, tell me". Each runs as a
background task (` + "`hangdog bg ls`" + ` lists it, ` + "`bg logs`" + ` shows its checks) and costs
nothing between checks. Its first check is the baseline and never fires; create
prints what it read. Each fire is one event in the event log (` + "`hangdog events`" + `),
delivered once to each consumer: an MCP session's next tool result,
` + "`hangdog events --consumer`" + `, ` + "`hangdog wake`" + `.

The owner is $HANGDOG_SESSION (none if unset); to another session (an agent)
a watcher it does not own does not exist. You, at a terminal and outside any
hangdog task, may show, pause, resume and remove any watcher ` + "`watch ls --all`" + `
lists.`,
	}
	cmd.AddCommand(newWatchCreateCmd(), newWatchLsCmd(), newWatchShowCmd(),
		newWatchPauseCmd(), newWatchResumeCmd(), newWatchRmCmd(), newWatchSecretCmd())
	return cmd
}

func newWatchCreateCmd() *cobra.Command {
	var q watch.Request
	var interval, timeout, cooldown time.Duration
	var maxFires, maxWakes, maxHits int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "create --kind KIND [TARGET] [flags]",
		Short: "Create a watcher; prints its id and the first check's value",
		Long: `Create a watcher and start its background task.

Kinds and their TARGET:
  file     a path; inotify tells of changes (polling every --interval if it cannot)
  http     an http(s) URL; ETag and Last-Modified are honoured (a 304 is a quiet
           check); 30 s timeout, pages cut at 1 MiB, their text at 256 KiB; HTML is
           read as text, JSON with its keys sorted
  rss      an RSS or Atom feed URL; each new item (GUID or id) fires once
  process  pid:N, pidfile:PATH or name:NAME; fires when it starts or stops
  command  a bash command printing one JSON object
           {"outcome": "idle"|"activity"|"terminal", "payload": …, "cursor": …};
           it gets the previous cursor as JSON in $HANGDOG_WATCH_CURSOR; a non-zero
           exit, a timeout or bad JSON is an idle poll unless --strict
  webhook  no TARGET: a trigger link. Create prints its URL
           (http://ADDR/hook/<256-bit token>, served by ` + "`hangdog serve`" + `, started
           on demand), its expiry (--expires, default 7 days), --max-hits (default
           100) and --rate (default 60/min), and an example curl. Each accepted
           POST fires once (the check reads its JSON body). --signature github,
           standard_webhooks or hmac_sha256 checks the sender's signature; its
           secret comes from --secret-env VAR or --secret-file F (private), or is
           made for you; ` + "`hangdog watch secret ID`" + ` shows it, and it is never shown
           to a model or logged. Behind a proxy or tunnel, set
           $HANGDOG_RECEIVER_URL (e.g. https://hooks.example.net) and the URL
           carries that base; the receiver still runs here, behind it

Checks (--check), run only when the content changed:
  changed   (default) any change
  new       new items: a feed's entries, or the elements of the JSON array at --path
  above, below --value N   the number at --path (else the first number in the
            text) crosses N; edge-triggered: fires once until it goes back
  contains --value TEXT, matches --value REGEX   edge-triggered too
  status --value A,B       the value at --path becomes one of A, B
--condition TEXT is asked of the remote decision model only after the check
fires and the cooldown and budgets allow a fire: the model (no tools, a 200-token
answer) sees the condition and at most 8,000 characters of the source's text,
secrets redacted, marked untrusted. Holds: it fires; does not hold: nothing
fires. The model is the one the watchdog uses (HANGDOG_OPENAI_BASE_URL and
HANGDOG_OPENAI_MODEL, TYPESAFE_API_KEY, or watchdog.decisionModel.*); with none
the fire goes out at once marked "condition not checked". A model that fails
(timeout, 5xx, a bad answer) is asked again at the next check, and after
watchers.judgeFailures failures in a row (` + settings.DefaultText("watchers.judgeFailures") + ` unless set) the fire goes out
marked not checked.

Limits: --interval at least watchers.networkIntervalFloorSec seconds for http
and rss (` + settings.DefaultText("watchers.networkIntervalFloorSec") + ` unless set), 1s for local kinds; --expires an ISO-8601
time with a zone; --cooldown (changes inside it advance the state and fire
nothing); --max-fires 1-100 (default: ` + settings.DefaultHelp("watchers.maxFires") + `),
then the watcher pauses; --max-wakes-per-hour (default:
` + settings.DefaultHelp("watchers.maxWakesPerHour") + `); at most watchers.maxActivePerOwner
active watchers per owner (` + settings.DefaultText("watchers.maxActivePerOwner") + ` unless set). An unreachable source
(timeout, 5xx, 429) is a skipped check; after watchers.graceChecks in a row
(` + settings.DefaultText("watchers.graceChecks") + ` unless set) you are told once and the watcher pauses;
watchers.maxErrors errors in a row (` + settings.DefaultText("watchers.maxErrors") + ` unless set; 404, a missing file)
pause it too. The watchers.* settings (` + "`hangdog config list`" + `) are read at
create and resume.`,
		Example: `  hangdog watch create --kind file ./build/status.json --check status --path state --value failed,passed
  hangdog watch create --kind webhook --signature github --secret-env GH_HOOK_SECRET --check status --path workflow_run.conclusion --value failure
  hangdog watch create --kind webhook --max-hits 1 --expires 2026-12-24T18:00:00Z
  hangdog watch create --kind http https://shop.example/api/item/42 --check below --path data.price --value 90 --interval 10m
  hangdog watch create --kind http https://example.com/changelog --expires 2026-12-24T18:00:00Z --max-fires 3
  hangdog watch create --kind rss https://blog.example/feed.xml --interval 30m
  hangdog watch create --kind process pidfile:/run/nginx.pid
  hangdog watch create --kind command 'gh run view 123 --json status | jq -c "{outcome: (if .status==\"completed\" then \"terminal\" else \"idle\" end), payload: .status}"'
  hangdog watch create --kind file notes.txt --json | jq -r .id`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 && strings.EqualFold(q.Kind, watch.KindWebhook) {
				return nil // a link has no target
			}
			if len(args) != 1 {
				return fmt.Errorf("watch create needs one TARGET (a path, URL, pid:N or command), got %d; e.g. `hangdog watch create --kind file ./notes.txt`", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				q.Target = args[0]
			}
			f := cmd.Flags()
			q.IntervalSeconds = interval.Seconds()
			q.TimeoutSeconds = timeout.Seconds()
			if f.Changed("cooldown") {
				q.CooldownSeconds = new(cooldown.Seconds())
			}
			if f.Changed("max-fires") {
				q.MaxFires = &maxFires
			}
			if f.Changed("max-wakes-per-hour") {
				q.MaxWakesPerHour = &maxWakes
			}
			if f.Changed("max-hits") {
				q.MaxHits = &maxHits
			}
			svc, err := openWatchers()
			if err != nil {
				return err
			}
			c, err := svc.Create(cmd.Context(), cliCaller(), &q)
			if err != nil {
				return err
			}
			if c.ConditionNote != "" {
				fmt.Fprintf(cmd.ErrOrStderr(), "hangdog: warning: %s\n", c.ConditionNote)
			}
			if c.Warning != "" {
				fmt.Fprintf(cmd.ErrOrStderr(), "hangdog: warning: %s\n", plain(c.Warning))
			}
			if c.Link != nil {
				return printLinkCreated(cmd, c, asJSON)
			}
			if asJSON {
				return printCreatedJSON(cmd, map[string]any{"id": c.Spec.ID, "baseline": c.Baseline, "warning": c.Warning, "task_id": c.TaskID, "spec": c.Spec, "state": c.State}, c.TaskErr)
			}
			if c.TaskErr != nil {
				return taskDidNotStart(c)
			}
			taskID := c.TaskID
			fmt.Fprintf(cmd.OutOrStdout(), "%s: %s — %s (task %s)\n", c.Spec.ID, plain(c.Spec.Label()), plain(c.Baseline), taskID)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&q.Kind, "kind", "", "file, http, rss, process, command or webhook (required)")
	f.StringVar(&q.Check, "check", "", "changed (default), new, above, below, contains, matches, status")
	f.StringVar(&q.Path, "path", "", "dotted path into JSON with [index], e.g. data.items[0].price")
	f.StringVar(&q.Value, "value", "", "the threshold, text, regex or comma-separated statuses the check needs")
	f.StringVar(&q.Condition, "condition", "", "a natural-language condition asked only after the check fires")
	f.BoolVar(&q.Strict, "strict", false, "command: a failing run (exit, timeout, bad JSON) is an error, not an idle poll")
	f.DurationVar(&interval, "interval", 0, "time between checks (default 5m for http/rss, 5s for file, 30s for process/command)")
	f.DurationVar(&timeout, "timeout", 0, "command: how long a run may take (default 30s)")
	f.StringVar(&q.ExpiresAt, "expires", "", "ISO-8601 time with a zone after which the watcher stops, e.g. 2026-12-01T18:00:00Z")
	f.DurationVar(&cooldown, "cooldown", 0, "after a fire, changes within this long fire nothing")
	// No flag default: an unset flag leaves the setting's value to the
	// store, and the help names the setting rather than a number it holds.
	f.IntVar(&maxFires, "max-fires", 0, "fires before the watcher pauses, 1-100 (default: "+settings.DefaultHelp("watchers.maxFires")+")")
	f.IntVar(&maxWakes, "max-wakes-per-hour", 0, "more fires than this within an hour pause the watcher (default: "+settings.DefaultHelp("watchers.maxWakesPerHour")+")")
	f.StringVar(&q.Signature, "signature", "", "webhook: github, standard_webhooks or hmac_sha256 (default: unsigned, the URL is the secret)")
	f.StringVar(&q.SecretEnv, "secret-env", "", "webhook: the environment variable holding the signing secret")
	f.StringVar(&q.SecretFile, "secret-file", "", "webhook: a private file (mode 600) holding the signing secret")
	f.IntVar(&maxHits, "max-hits", watch.DefaultMaxHits, "webhook: deliveries the link accepts, then it closes (1-10000)")
	f.StringVar(&q.Rate, "rate", "", "webhook: deliveries a minute, e.g. 60/min (default) or 2/s")
	f.BoolVar(&asJSON, "json", false, `print {"id", "baseline", "task_id", "spec", "state"} as JSON (a webhook: its link's fields too)`)
	return cmd
}

// printCreatedJSON prints a created watcher's --json report; a task that
// did not start is its "error" and hangdog's exit status (the watcher is
// kept: `watch resume` starts it).
func printCreatedJSON(cmd *cobra.Command, out map[string]any, taskErr error) error {
	if taskErr != nil {
		out["error"] = taskErr.Error()
	}
	if err := json.NewEncoder(cmd.OutOrStdout()).Encode(out); err != nil {
		return err
	}
	if taskErr != nil {
		return exitCode(exitHangdogError)
	}
	return nil
}

// startBackgroundTask starts argv as a background task of the caller's
// session, as `bg run` does, and returns its id once the command runs.
// hangdog-full's libraries query a terminal for its colours at start-up
// and wait seconds for an answer a task's PTY never gives, so it runs
// with TERM=dumb. The task is listed as display (`bg ls`, /bg, its
// events), not as that command line.
func startBackgroundTask(reg *bgtasks.Registry, argv []string, display string, quietEnd bool) (string, error) {
	owner, err := callerSession("")
	if err != nil {
		return "", err
	}
	return taskctl.StartBackground(reg, taskctl.Request{Argv: append([]string{"env", "TERM=dumb"}, argv...), Owner: owner}, display, quietEnd)
}

// taskDidNotStart is create's error for a watcher kept without its task.
func taskDidNotStart(c *watchctl.Created) error {
	return fmt.Errorf("watcher %s created but its task did not start: %w; `hangdog watch resume %s` tries again", c.Spec.ID, c.TaskErr, c.Spec.ID)
}

func newWatchLsCmd() *cobra.Command {
	var asJSON, all bool
	cmd := &cobra.Command{
		Use:     "ls",
		Aliases: []string{"list"},
		Short:   "List your watchers: state, fires used, last check, why paused",
		Long: `List the watchers of your session ($HANGDOG_SESSION; without one, of this
project): ID, STATE (active; paused; stopped when the watchers' runner is not
running, which the listing then starts;
unserved, a link whose receiver is not running or not this home's; damaged,
files that cannot be read), FIRES used of the budget, CHECKS, the LAST check, WHAT it watches and, for a
paused one, why. --json prints every recorded field.`,
		Example: `  hangdog watch ls
  hangdog watch ls --json | jq -r '.[] | select(.state.paused) | .spec.id + " " + .state.reason'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := openWatchers()
			if err != nil {
				return err
			}
			ws, err := svc.List(cliCaller(), all)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if asJSON {
				if ws == nil {
					ws = []*watch.Watcher{}
				}
				return json.NewEncoder(out).Encode(ws)
			}
			if len(ws) == 0 {
				fmt.Fprintln(cmd.ErrOrStderr(), "no watchers; create one with `hangdog watch create --kind file PATH`")
				return nil
			}
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tSTATE\tFIRES\tCHECKS\tLAST\tWHAT")
			for _, w := range ws {
				fmt.Fprintln(tw, watchRow(svc, w))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array instead of a table")
	cmd.Flags().BoolVarP(&all, "all", "a", false, "list every watcher in the home, not only yours")
	return cmd
}

func watchRow(svc *watchctl.Service, w *watch.Watcher) string {
	last := "-"
	if w.State.LastCheck != nil {
		last = w.State.LastCheck.Local().Format("15:04:05")
	}
	budget := "∞"
	if w.Spec.MaxFires > 0 {
		budget = fmt.Sprint(w.Spec.MaxFires)
	}
	what := plain(w.Spec.Label())
	state := svc.State(w)
	switch {
	case w.State.Paused:
		what += " — paused: " + plain(w.State.Reason)
	case state == "stopped":
		what += " — the watchers' runner is not running; this listing starts it again (or `hangdog watch resume " + w.Spec.ID + "`)"
	case state == "unserved":
		why := "hangdog's receiver is not running"
		if err := svc.ReceiverProblem(w); err != nil {
			why = plain(err.Error())
		}
		what += " — it cannot be called now: " + why + "; its runner starts the receiver again within seconds"
	case w.State.Judging != nil:
		what += " — " + judgingNote(w.State.Judging)
	case w.State.LastError != "":
		what += " — last error: " + plain(w.State.LastError)
	}
	return fmt.Sprintf("%s\t%s\t%d/%s\t%d\t%s\t%s", w.Spec.ID, state, w.State.FiresUsed, budget, w.State.Checks, last, what)
}

// judgingNote says a match waits for the decision model, and why.
func judgingNote(j *watch.Judging) string {
	s := "a match (" + plain(j.Summary) + ") awaits the decision model"
	if j.Failures > 0 {
		s += fmt.Sprintf(" after %d failed asks (last: %s)", j.Failures, plain(j.LastError))
	}
	return s
}

func plain(s string) string {
	s = termtext.Plain([]byte(s))
	return strings.TrimSpace(strings.NewReplacer("\n", " ", "\t", " ").Replace(s))
}

func watchIDArg(what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != 1 {
			return fmt.Errorf("%s needs one watcher id, e.g. `%s`; `hangdog watch ls` lists them", cmd.CommandPath(), what)
		}
		return nil
	}
}

func notFoundHint(err error) error {
	if errors.Is(err, watch.ErrNotFound) {
		return fmt.Errorf("%w; `hangdog watch ls` lists your watchers (the owner is $%s)", err, sessionEnv)
	}
	return err
}

func newWatchShowCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "show ID",
		Short:   "Show one watcher: its spec and everything its state records",
		Example: "  hangdog watch show w3\n  hangdog watch show w3 --json | jq .state.fires_used",
		Args:    watchIDArg("hangdog watch show w3"),
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := openWatchers()
			if err != nil {
				return err
			}
			w, err := svc.Get(cliCaller(), args[0])
			if err != nil {
				return notFoundHint(err)
			}
			if asJSON {
				return json.NewEncoder(cmd.OutOrStdout()).Encode(w)
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "%s  %s\n", w.Spec.ID, plain(w.Spec.Label()))
			fmt.Fprintf(out, "state:     %s%s\n", svc.State(w), map[bool]string{true: " (" + plain(w.State.Reason) + ")", false: ""}[w.State.Paused])
			fmt.Fprintf(out, "value:     %s\n", plain(w.State.Value))
			fmt.Fprintf(out, "fires:     %d of %d; checks %d (%d quiet, %d skipped)\n", w.State.FiresUsed, w.Spec.MaxFires, w.State.Checks, w.State.QuietChecks, w.State.Skipped)
			fmt.Fprintf(out, "interval:  %v; cooldown %v; at most %d wakes an hour\n", w.Spec.Interval, w.Spec.Cooldown, w.Spec.MaxWakesPerHour)
			if w.Spec.ExpiresAt != nil {
				fmt.Fprintf(out, "expires:   %s\n", w.Spec.ExpiresAt.Format(time.RFC3339))
			}
			if w.Spec.Condition != "" {
				fmt.Fprintf(out, "condition: %s\n", plain(w.Spec.Condition))
			}
			if w.State.Judging != nil {
				fmt.Fprintf(out, "judging:   %s\n", judgingNote(w.State.Judging))
			}
			if w.Spec.Kind == watch.KindWebhook && w.Spec.Link != nil {
				sig := orNone(w.Spec.Link.Signature)
				fmt.Fprintf(out, "link:      %d of %d deliveries, %d/min, signature %s (`hangdog watch secret %s` shows its URL and secret)\n",
					svc.Store().LinkHits(w.Spec.ID), w.Spec.Link.MaxHits, w.Spec.Link.RatePerMin, sig, w.Spec.ID)
			}
			if w.State.LastError != "" {
				fmt.Fprintf(out, "error:     %s\n", plain(w.State.LastError))
			}
			if w.State.TaskID != "" {
				fmt.Fprintf(out, "task:      %s, the watchers' runner (`hangdog bg logs %s` shows the checks; this watcher's lines name %s)\n", w.State.TaskID, w.State.TaskID, w.Spec.ID)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the watcher as JSON")
	return cmd
}

func newWatchPauseCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "pause ID",
		Short:   "Pause a watcher: its task ends, its state and fires used are kept",
		Example: "  hangdog watch pause w3",
		Args:    watchIDArg("hangdog watch pause w3"),
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := openWatchers()
			if err != nil {
				return err
			}
			w, err := svc.Pause(cliCaller(), args[0], "")
			if err != nil {
				return notFoundHint(err)
			}
			return watchReport(cmd, w, asJSON, "paused")
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the watcher as JSON")
	return cmd
}

func newWatchResumeCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "resume ID",
		Short:   "Resume a paused watcher (or restart one whose task ended); clears the reason, keeps the fires used",
		Example: `  hangdog watch resume w3`,
		Args:    watchIDArg("hangdog watch resume w3"),
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := openWatchers()
			if err != nil {
				return err
			}
			w, err := svc.Resume(cmd.Context(), cliCaller(), args[0])
			if err != nil {
				return notFoundHint(err)
			}
			return watchReport(cmd, w, asJSON, "resumed")
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the watcher as JSON")
	return cmd
}

func newWatchRmCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "rm ID",
		Aliases: []string{"delete"},
		Short:   "Delete a watcher; its task ends",
		Example: "  hangdog watch rm w3",
		Args:    watchIDArg("hangdog watch rm w3"),
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := openWatchers()
			if err != nil {
				return err
			}
			w, err := svc.Delete(cliCaller(), args[0])
			if err != nil {
				return notFoundHint(err)
			}
			if asJSON {
				return json.NewEncoder(cmd.OutOrStdout()).Encode(map[string]any{"id": w.Spec.ID, "deleted": true})
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s deleted\n", w.Spec.ID)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"id", "deleted"} as JSON`)
	return cmd
}

func watchReport(cmd *cobra.Command, w *watch.Watcher, asJSON bool, did string) error {
	id := w.Spec.ID
	if asJSON {
		return json.NewEncoder(cmd.OutOrStdout()).Encode(w)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "%s %s (fires used %d of %d)\n", id, did, w.State.FiresUsed, w.Spec.MaxFires)
	return nil
}

func newWatchRunnerCmd() *cobra.Command {
	return &cobra.Command{
		Use:    hiddenarg.Watch,
		Short:  "Run the home's watchers (what the watchers' runner task runs)",
		Hidden: true,
		Args:   cobra.NoArgs,
		// runner.Program (package watchctl/runner) runs the same where it is
		// installed; this one adds the fleet's client.
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
			defer stop()
			return watchctl.RunHome(ctx, os.Stdout, os.Stderr)
		},
	}
}
