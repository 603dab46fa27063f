package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/hangdog/hangdog/bgtasks"
)

func init() { registerCommand(newLogCmd) }

func newLogCmd() *cobra.Command {
	var follow bool
	var task string
	cmd := &cobra.Command{
		Use:   "log",
		Short: "Read the watchdog's checks: one line per check, and why it acted or not",
		Long: `Print the watchdog's checks. Each task keeps its last 20 checks in its own
directory, always, so --task ID explains a detach (or why there was none) with
no setting. Every check of every watched task also writes one line to the
debug log, <home>/logs/watchdog.log, when HANGDOG_DEBUG_WATCHDOG=1 is set in
the environment of the run, or the setting watchdog.debug is true; --task
prints that task's lines from it when there are any (all its checks, not only
the last 20), and without --task the whole debug log is printed:

  2026-11-29T10:01:02.000Z task=t4 check=3 due status=stuck confidence=0.82
    streak=2 trigger=idle veto=- action=background reason=… evidence=…

A fast check only looks for a process blocked reading the terminal; a due
check asks the judge. trigger is what proposed acting, veto what prevented it.`,
		Example: `  HANGDOG_DEBUG_WATCHDOG=1 hangdog run -- ./flaky.sh
  hangdog log --task t4               # why t4 was detached, or was not
  hangdog log -f                      # the debug log, as it grows`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			reg, err := openRegistry()
			if err != nil {
				return err
			}
			path := reg.CheckLogPath()
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if task != "" && !follow {
				return printTaskChecks(reg, path, task, cmd.OutOrStdout())
			}
			err = printCheckLog(ctx, path, task, follow, cmd.OutOrStdout())
			if errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("no watchdog log at %s yet; run with HANGDOG_DEBUG_WATCHDOG=1 or `hangdog config set watchdog.debug true`", path)
			}
			return err
		},
	}
	cmd.Flags().BoolVarP(&follow, "follow", "f", false, "keep printing new lines until interrupted")
	cmd.Flags().StringVar(&task, "task", "", "only lines of this task id")
	return cmd
}

// printCheckLog copies the log's lines (those of one task, if given) and,
// when following, waits for more until ctx ends.
func printCheckLog(ctx context.Context, path, task string, follow bool, w io.Writer) error {
	f, err := os.Open(path)
	if follow && errors.Is(err, fs.ErrNotExist) {
		for errors.Is(err, fs.ErrNotExist) {
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(200 * time.Millisecond):
			}
			f, err = os.Open(path)
		}
	}
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	want := "task=" + task + " "
	var partial string
	for {
		line, err := r.ReadString('\n')
		if err == nil {
			line = partial + line
			partial = ""
			if task == "" || strings.Contains(line, want) {
				if _, werr := io.WriteString(w, line); werr != nil {
					return werr
				}
			}
			continue
		}
		if !errors.Is(err, io.EOF) {
			return fmt.Errorf("read %s: %w", path, err)
		}
		partial += line // a line still being written
		if !follow {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// printTaskChecks prints one task's checks: its lines in the debug log when
// there are any (every check), else the last checks its directory keeps.
func printTaskChecks(reg *bgtasks.Registry, debugLog, task string, w io.Writer) error {
	var debug strings.Builder
	err := printCheckLog(context.Background(), debugLog, task, false, &debug)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if debug.Len() > 0 {
		_, err := io.WriteString(w, debug.String())
		return err
	}
	if _, err := reg.Get(task); err != nil {
		return err
	}
	lines, err := reg.ReadChecks(task)
	if err != nil {
		return err
	}
	if len(lines) == 0 {
		_, err := fmt.Fprintf(w, "task %s: %s\n", task, bgtasks.NoChecks)
		return err
	}
	for _, l := range lines {
		if _, err := fmt.Fprintln(w, l); err != nil {
			return err
		}
	}
	return nil
}
