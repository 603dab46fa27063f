package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/internal/termtext"
	"github.com/hangdog/hangdog/taskctl"
)

func init() { registerBgCommand(newBgWaitCmd) }

// waitPollInterval is how often `bg wait` checks whether the task has ended.
const waitPollInterval = 200 * time.Millisecond

func newBgWaitCmd() *cobra.Command {
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "wait ID",
		Short: "Wait for a task to end and exit with its exit code",
		Long: `Block until the task ends, then exit with its exit code: the command's own
code, or 128+N when signal N ended it. A task that has already ended returns
at once with its code.

When hangdog killed the task (bg kill, the watchdog, its caller gone), one line
on stderr says so and why. When the task was lost (its supervisor died without
recording a result), one line says where its output is and the exit code is
125. With --timeout, a task still running when it expires leaves it running
and exits 124, as timeout(1) does.`,
		Example: `  hangdog bg wait t3
  hangdog bg wait t3 --timeout 10m || echo "t3 failed or is still running"`,
		Args: taskArgs(0, "hangdog bg wait t3 --timeout 5m"),
		RunE: func(cmd *cobra.Command, args []string) error {
			reg, err := openRegistry()
			if err != nil {
				return err
			}
			id := args[0]
			ctx := cmd.Context()
			if timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, timeout)
				defer cancel()
			}
			t, err := waitForEnd(ctx, reg, id)
			if errors.Is(err, context.DeadlineExceeded) {
				fmt.Fprintf(cmd.ErrOrStderr(), "hangdog: task %s is still running after %s; wait again with `hangdog bg wait %s` or stop it with `hangdog bg kill %s`\n", id, timeout, id, id)
				return exitCode(exitWaitTimeout)
			}
			if err != nil {
				return err
			}
			return exitForEnd(cmd.ErrOrStderr(), t)
		},
	}
	cmd.Flags().DurationVar(&timeout, "timeout", 0, "give up after this long (e.g. 30s, 10m) and exit 124; 0 waits forever")
	return cmd
}

// waitForEnd polls the task until it has a result (Get also notices a dead
// supervisor and records the task as lost).
func waitForEnd(ctx context.Context, reg *bgtasks.Registry, id string) (*bgtasks.Task, error) {
	ticker := time.NewTicker(waitPollInterval)
	defer ticker.Stop()
	for {
		t, err := reg.Get(id)
		if err != nil {
			return nil, err
		}
		if t.State().Ended() && t.Result != nil {
			return t, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-ticker.C:
		}
	}
}

// exitForEnd turns how a task ended into `bg wait`'s exit status, saying on
// stderr how it ended when the command did not simply exit.
func exitForEnd(stderr io.Writer, t *bgtasks.Task) error {
	res := t.Result
	switch res.State {
	case bgtasks.Lost:
		fmt.Fprintf(stderr, "hangdog: task %s was lost: its supervisor exited without recording a result; its output is kept in %s (`hangdog bg logs %s`)\n", t.ID, t.OutputPath(), t.ID)
		return exitCode(exitHangdogError)
	case bgtasks.Killed:
		how := "task " + t.ID + " was killed"
		if res.Signal != "" {
			how += " with " + strings.TrimSpace(termtext.OneLine(res.Signal))
		}
		if res.Reason != "" {
			how += " (" + strings.TrimSpace(termtext.OneLine(res.Reason)) + ")"
		}
		fmt.Fprintf(stderr, "hangdog: %s after %s; exit %d\n", how, taskctl.Compact.Format(t.Duration(time.Now())), res.ExitCode)
	}
	if res.ExitCode == 0 {
		return nil
	}
	if res.ExitCode < 0 || res.ExitCode > 255 {
		return fmt.Errorf("task %s ended with exit code %d, which no process can exit with; see `hangdog bg logs %s`", t.ID, res.ExitCode, t.ID)
	}
	return exitCode(res.ExitCode)
}
