package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/cchook"
	"github.com/hangdog/hangdog/taskctl"
)

// runClaudeCode runs the command of a Bash call the Claude Code hook
// rewrote (`hangdog run --claude-code --session claude-ID ...`): supervised
// with the hook's cadence and the session's cwd trap, presented by cchook
// as Claude Code's own Bash would show it. Everything it needs is on its
// command line and in the home: no wrapper, no settings listing, no scan of
// the event log.
func runClaudeCode(pending *taskctl.Pending, args []string, f runFlags) error {
	reg, err := openRegistry()
	if err != nil {
		pending.Cancel()
		return err
	}
	out := bufio.NewWriterSize(os.Stdout, 32<<10)
	defer out.Flush()
	call, err := cchook.NewCall(reg, f.session, f.cwdFile, strings.Join(args, " "), out)
	if err != nil {
		pending.Cancel()
		return err
	}
	sets, defaults := cchook.RunSettings(nil)
	f.sets = append(sets, f.sets...)
	env, err := call.Env(os.Environ(), os.Getenv)
	if err != nil {
		pending.Cancel()
		return err
	}
	spec, err := buildSpecWith(args, f.taskFlags, bgtasks.Foreground, func(r *taskctl.Request) {
		r.Defaults, r.Env, r.Interactive = defaults, env, false
	})
	if err != nil {
		pending.Cancel()
		return err
	}
	link, err := pending.Start(reg, spec)
	if err != nil {
		return err
	}
	defer link.Close()
	defer controlRun(reg, link, f.detachAfter)()
	// The news goes above the output; the command is already running.
	if err := call.TellNews(); err != nil {
		fmt.Fprintln(os.Stderr, "hangdog:", err)
	}
	o, err := link.Follow(func(ev taskctl.Event) error {
		if ev.Kind == taskctl.EventOutput && len(ev.Output) > 0 {
			if err := call.Output(ev.Output); err != nil {
				return taskctl.ErrOutputClosed
			}
		}
		return nil
	})
	if errors.Is(err, taskctl.ErrOutputClosed) {
		return exitCode(exitHangdogError)
	}
	if err != nil {
		return err
	}
	code := call.Present(o)
	if err := out.Flush(); err != nil {
		return exitCode(exitHangdogError)
	}
	return exitCode(code)
}
