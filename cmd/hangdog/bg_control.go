package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/internal/keys"
	"github.com/hangdog/hangdog/taskctl"
)

func init() {
	registerBgCommand(newBgKillCmd)
	registerBgCommand(newBgSendCmd)
	registerBgCommand(newBgDetachCmd)
}

// openRunningTask is runningTask in the user's registry.
func openRunningTask(id string) (*bgtasks.Task, error) {
	reg, err := openRegistry()
	if err != nil {
		return nil, err
	}
	return runningTask(reg, id)
}

// runningTask finds a task that can still be acted on, or says why not.
func runningTask(reg *bgtasks.Registry, id string) (*bgtasks.Task, error) {
	t, err := reg.Get(id)
	if err != nil {
		return nil, err
	}
	switch st := t.State(); {
	case st == bgtasks.Lost:
		return t, fmt.Errorf("task %s was lost (its supervisor died); its output is kept: `hangdog bg logs %s`", id, id)
	case st.Ended():
		return t, fmt.Errorf("task %s has already ended (%s); `hangdog bg logs %s` shows its output", id, taskctl.DescribeEnd(t.Result, taskctl.TerseWords{}), id)
	}
	return t, nil
}

func newBgKillCmd() *cobra.Command {
	var sigName string
	var grace time.Duration
	cmd := &cobra.Command{
		Use:   "kill ID",
		Short: "Stop a task and every process it started",
		Long: `Stop a task: the signal (SIGTERM by default) goes to every process of the task's
tree, including daemons it double-forked (the supervisor is their subreaper);
whatever is still alive after the grace period gets SIGKILL. Returns once
nothing of the task is left, and exits 0.`,
		Example: `  hangdog bg kill t3
  hangdog bg kill t3 --signal INT --grace 10s`,
		Args: taskArgs(0, "hangdog bg kill t3"),
		RunE: func(cmd *cobra.Command, args []string) error {
			sig, err := parseSignal(sigName)
			if err != nil {
				return err
			}
			reg, err := openRegistry()
			if err != nil {
				return err
			}
			k, err := taskctl.Kill(cmd.Context(), reg, args[0], taskctl.KillOptions{Signal: sig, Grace: grace, Reason: "killed with `hangdog bg kill`"})
			var ended *taskctl.EndedError
			switch {
			case errors.As(err, &ended):
				_, err := runningTask(reg, ended.Task.ID) // says how it ended, in the CLI's words
				return err
			case errors.Is(err, taskctl.ErrLostGone):
				_, err := runningTask(reg, args[0])
				return err
			case err != nil:
				return err
			case k.Lost:
				fmt.Printf("%s was lost; killed what was left of it: %s\n", k.Task.ID, k.LostRemains())
				return nil
			}
			fmt.Printf("%s %s after %s (exit %d)\n", k.Task.ID, taskctl.DescribeEnd(&k.Result, taskctl.TerseWords{}), taskctl.RoundDuration(k.Result.Ended.Sub(k.Task.Started)), k.Result.ExitCode)
			return nil
		},
	}
	cmd.Flags().StringVar(&sigName, "signal", "TERM", "first signal to send: a name (TERM, INT, HUP, KILL) or a number")
	cmd.Flags().DurationVar(&grace, "grace", 5*time.Second, "how long to wait after the first signal before SIGKILL")
	return cmd
}

func parseSignal(s string) (syscall.Signal, error) {
	if n, err := strconv.Atoi(s); err == nil && n > 0 && n < 65 {
		return syscall.Signal(n), nil
	}
	name := strings.ToUpper(s)
	if !strings.HasPrefix(name, "SIG") {
		name = "SIG" + name
	}
	if sig := unix.SignalNum(name); sig != 0 {
		return sig, nil
	}
	return 0, fmt.Errorf("--signal %q: unknown signal; use a name such as TERM, INT, HUP, KILL or a number", s)
}

func newBgSendCmd() *cobra.Command {
	var literal bool
	cmd := &cobra.Command{
		Use:   "send ID TEXT",
		Short: "Type text into a task's terminal (answer a prompt)",
		Long: `Write TEXT to the task's terminal as if typed. Escapes are understood:
\n (Enter), \r, \t, \e (Escape), \xHH (any byte, e.g. \x03 for Ctrl-C), \\.
Nothing is added: end with \n to press Enter.`,
		Example: `  hangdog bg send t3 'y\n'
  hangdog bg send t3 '\x03'          # Ctrl-C
  hangdog bg send t3 ':q\n'          # leave vim`,
		Args: taskArgs(1, `hangdog bg send t3 'y\n'`),
		RunE: func(cmd *cobra.Command, args []string) error {
			text := strings.Join(args[1:], " ")
			data := []byte(text)
			if !literal {
				var err error
				if data, err = keys.Unescape(text); err != nil {
					return err
				}
			}
			t, err := openRunningTask(args[0])
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), 10*time.Second)
			defer cancel()
			return taskctl.SendInput(ctx, t, data)
		},
	}
	cmd.Flags().BoolVar(&literal, "literal", false, "send TEXT as is, without interpreting escapes")
	return cmd
}

func newBgDetachCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "detach [ID] [REASON...]",
		Short: "Move a foreground run to the background; its caller returns at once",
		Long: `Move a foreground run to the background. Without an ID, the most recently
started foreground run of this user is chosen. Its caller (hangdog run, the
shell, the MCP server) returns at once with exit status 0, the task id, the
output so far and the reason; the command itself is untouched and keeps its
start time and output. From then on only ` + "`hangdog bg kill`" + ` or its own exit stops it.`,
		Example: `  hangdog bg detach
  hangdog bg detach t7
  hangdog bg detach 'dev server is up, keep it running'`,
		RunE: func(cmd *cobra.Command, args []string) error {
			reg, err := openRegistry()
			if err != nil {
				return err
			}
			var t *bgtasks.Task
			if len(args) > 0 && bgtasks.ValidID(args[0]) {
				if t, err = runningTask(reg, args[0]); err != nil {
					return err
				}
				args = args[1:]
			} else if t, err = detachTarget(reg, args); err != nil { // cli_edges.go
				return err
			}
			reason := strings.Join(args, " ")
			if reason == "" {
				reason = "detached with `hangdog bg detach`"
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), 10*time.Second)
			defer cancel()
			d, err := taskctl.DetachRun(ctx, reg, t.ID, reason)
			if err != nil {
				if errors.Is(err, taskctl.ErrNotReachable) {
					return fmt.Errorf("%w; is task %s still running? `hangdog bg ls` shows it", err, t.ID)
				}
				return err
			}
			if asJSON {
				return json.NewEncoder(os.Stdout).Encode(map[string]any{"status": "detached", "task_id": d.TaskID, "reason": d.Reason, "elapsed_ms": d.ElapsedMS})
			}
			fmt.Printf("%s detached after %s: %s\n", d.TaskID, taskctl.RoundDuration(time.Duration(d.ElapsedMS)*time.Millisecond), d.Reason)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}
