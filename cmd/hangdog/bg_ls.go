package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/clipperhouse/displaywidth"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/internal/procusage"
	"github.com/hangdog/hangdog/taskctl"
)

func init() { registerBgCommand(newBgLsCmd) }

const (
	// lsRecentEnded is how many ended tasks `bg ls` shows without --all.
	lsRecentEnded = 20
	// lsCommandWidth is where the COMMAND column is cut when stdout is not a
	// terminal, so piped tables stay readable.
	lsCommandWidth = 60
	// lsMinCommandWidth keeps some of the command visible on a narrow terminal.
	lsMinCommandWidth = 20
)

func newBgLsCmd() *cobra.Command {
	var asJSON, all bool
	var session string
	cmd := &cobra.Command{
		Use:     "ls",
		Aliases: []string{"list"},
		Short:   "List tasks: running ones first, then recently ended ones",
		Long: `List tasks as a table: ID, STATE (starting, running, exited, killed, lost),
MODE (foreground: a caller is waiting; background: nobody is), when it STARTED,
its DURATION so far or in total, its EXIT code (128+N when signal N ended it;
"-" while running, "?" when lost), for a running task the CPU time and the
resident memory (MEM) of every process it runs now, and the COMMAND, cut to
fit the terminal. A server run by ` + "`hangdog mcp-proxy`" + ` whose calls are watched
(watchdog.otherTools warn or abort-turn) leads its COMMAND with its tool calls
in flight: "[2 calls: fetch 45s, 1 stuck]" (how many, the oldest one's tool and age).

It lists the tasks of this call's session (--session, $HANGDOG_SESSION) or,
without one, of this directory's project (its git top level, else the
directory); --all lists everyone's. Running tasks come first, newest first,
then the 20 most recently ended ones (--all: every ended task). A task whose
supervisor died without recording a result is shown as lost; its output is
kept.

--json prints the same tasks as a JSON array of objects with every recorded
field: "state" is the current state, "duration_ms" the duration, and
"result" (absent while running) how the task ended; a proxied server's
"calls" lists its calls in flight (tool, request_id, started, last_progress,
verdict, stuck).`,
		Example: `  hangdog bg ls
  hangdog bg ls --all
  hangdog bg ls --json | jq -r '.[] | select(.state == "running") | .id'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			reg, err := openRegistry()
			if err != nil {
				return err
			}
			scope, err := callerScope(session, all)
			if err != nil {
				return err
			}
			ended := lsRecentEnded
			if all {
				ended = bgtasks.AllEnded
			}
			// Only the newest ended tasks are read: a home keeps thousands.
			shown, hidden, err := reg.Recent(scope.SeesTask, ended)
			if err != nil {
				return err
			}
			usage := taskctl.TreeUsage(cmd.Context(), shown)
			out := cmd.OutOrStdout()
			if asJSON {
				return writeTasksJSON(out, shown, usage, time.Now())
			}
			if len(shown) == 0 {
				fmt.Fprintln(cmd.ErrOrStderr(), "no tasks; start one with `hangdog bg run -- COMMAND`")
				return nil
			}
			writeTaskTable(out, shown, usage, terminalColumns(out), time.Now())
			if hidden {
				fmt.Fprintln(cmd.ErrOrStderr(), "older ended tasks not shown; `hangdog bg ls --all` lists them")
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array instead of a table")
	cmd.Flags().BoolVarP(&all, "all", "a", false, fmt.Sprintf("list every session's and project's tasks, and every ended one, not only the %d most recent", lsRecentEnded))
	addSessionFlag(cmd, &session)
	return cmd
}

// taskJSON is a task as `bg ls --json` prints it: every recorded field, with
// "state" the current state rather than the one in meta.json.
type taskJSON struct {
	*bgtasks.Task
	State      bgtasks.State `json:"state"`
	DurationMS int64         `json:"duration_ms"`
	Usage      *usageJSON    `json:"usage,omitempty"` // running tasks only
}

// usageJSON is what a running task's processes cost now.
type usageJSON struct {
	Procs    int    `json:"procs"`
	CPUMS    int64  `json:"cpu_ms"`
	RSSBytes uint64 `json:"rss_bytes"`
}

func writeTasksJSON(w io.Writer, tasks []*bgtasks.Task, usage map[string]procusage.Usage, now time.Time) error {
	views := make([]taskJSON, 0, len(tasks))
	for _, t := range tasks {
		v := taskJSON{Task: t, State: t.State(), DurationMS: t.Duration(now).Milliseconds()}
		if u, ok := usage[t.ID]; ok {
			v.Usage = &usageJSON{Procs: u.Procs, CPUMS: u.CPU.Milliseconds(), RSSBytes: u.RSS}
		}
		views = append(views, v)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(views)
}

// terminalColumns is the width of the terminal w writes to, or 0 when w is
// not a terminal.
func terminalColumns(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return 0
	}
	cols, _, err := term.GetSize(int(f.Fd()))
	if err != nil || cols <= 0 {
		return 0
	}
	return cols
}

// writeTaskTable prints the `bg ls` table. On a terminal of termCols columns
// the command gets what is left of the row; elsewhere (termCols 0) it is cut
// at lsCommandWidth.
func writeTaskTable(w io.Writer, tasks []*bgtasks.Task, usage map[string]procusage.Usage, termCols int, now time.Time) {
	header := []string{"ID", "STATE", "MODE", "STARTED", "DURATION", "EXIT", "CPU", "MEM"}
	rows := make([][]string, 0, len(tasks))
	for _, t := range tasks {
		cpu, mem := "-", "-"
		if u, ok := usage[t.ID]; ok {
			cpu, mem = taskctl.Compact.Format(u.CPU), procusage.BytesText(u.RSS)
		}
		rows = append(rows, []string{
			t.ID, stateText(t), string(t.Mode), startedText(t.Started, now),
			taskctl.Compact.Format(t.Duration(now)), exitText(t), cpu, mem,
		})
	}
	widths := make([]int, len(header))
	for i, h := range header {
		widths[i] = len(h)
	}
	for _, row := range rows {
		for i, cell := range row {
			widths[i] = max(widths[i], displaywidth.String(cell))
		}
	}
	commandWidth := lsCommandWidth
	if termCols > 0 {
		used := 0
		for _, wd := range widths {
			used += wd + 2
		}
		commandWidth = max(termCols-used, lsMinCommandWidth)
	}
	var b strings.Builder
	writeRow := func(cells []string, command string) {
		for i, cell := range cells {
			b.WriteString(cell)
			b.WriteString(strings.Repeat(" ", widths[i]-displaywidth.String(cell)+2))
		}
		b.WriteString(command)
		b.WriteByte('\n')
	}
	writeRow(header, "COMMAND")
	for i, t := range tasks {
		writeRow(rows[i], displaywidth.TruncateString(strings.TrimSpace(taskctl.ListedCommand(t, now)), commandWidth, "…"))
	}
	_, _ = io.WriteString(w, b.String())
}

// startedText shows the time of day for today's tasks, the date otherwise.
func startedText(t, now time.Time) string {
	if t.IsZero() {
		return "-"
	}
	t = t.Local()
	y1, m1, d1 := t.Date()
	y2, m2, d2 := now.Local().Date()
	switch {
	case y1 == y2 && m1 == m2 && d1 == d2:
		return t.Format("15:04:05")
	case y1 == y2:
		return t.Format("Jan 02 15:04")
	default:
		return t.Format("2006-01-02")
	}
}

// stateText is a task's state for the table; a damaged task says so.
func stateText(t *bgtasks.Task) string {
	if t.Damaged != "" {
		return string(t.State()) + " (damaged)"
	}
	return string(t.State())
}

func exitText(t *bgtasks.Task) string {
	switch {
	case t.Result == nil:
		return "-"
	case t.Result.State == bgtasks.Lost:
		return "?"
	case t.Result.Signal != "":
		return strconv.Itoa(t.Result.ExitCode) + " " + t.Result.Signal
	default:
		return strconv.Itoa(t.Result.ExitCode)
	}
}
