//go:build !lite

package main

import (
	"errors"
	"os"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/hangdog/hangdog/tui"
	"github.com/hangdog/hangdog/tui/settingsview"
)

func init() {
	rootRun = func(cmd *cobra.Command, _ []string) error { return runShell(cmd) }
	registerCommand(newShellCmd)
	registerCommand(newSettingsCmd)
}

func newShellCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "shell",
		Short: shellShort,
		Long: `Open a full-screen shell for a person. Each command you type runs supervised in
the foreground and its output streams into the scrollback; the status bar shows
what the watchdog makes of it. Because you are at the terminal, a command that
waits for you to type is "waiting for you", never detached for it.

While a command runs, a line you type goes to it (answer its prompt); a line
starting with / is a shell command. A full-screen program (less, vim, top) gets
the whole terminal until it exits. Ctrl+B or /bg-detach moves the running
command to the background and gives the prompt back at once.

Commands: /bg-detach [reason], /bg, /logs ID, /kill ID, /send ID TEXT,
/events, /settings, /log, /clear, /help, /quit. Tab completes them, task ids,
command names and paths. Ctrl+F searches the output, Ctrl+R the history;
PgUp/PgDn, the mouse wheel and Home/End scroll. History is kept in
<home>/shell_history.`,
		Example: `  hangdog
  hangdog shell`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runShell(cmd) },
	}
}

func runShell(cmd *cobra.Command) error {
	if err := needTerminal("the shell"); err != nil {
		return err
	}
	reg, err := openRegistry()
	if err != nil {
		return err
	}
	return tui.Run(cmd.Context(), tui.Options{Registry: reg})
}

func newSettingsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "settings",
		Short: settingsShort,
		Long: `Show every watchdog setting with its value, where the value comes from (default,
user file, project file, environment), what it allows and what it does, and edit
it in place: space toggles a boolean, ←/→ pick a choice, numbers are checked as
you type and a refused value is shown in red and cannot be saved.

Ctrl+S saves the changed keys to the user file, or, after Tab, to the project's
.hangdog.yaml; comments and keys hangdog does not know are kept. The next
command uses the new values. ` + "`hangdog config`" + ` does the same from scripts.`,
		Example: `  hangdog settings`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := needTerminal("the settings screen"); err != nil {
				return err
			}
			return settingsview.Run(settingsview.Options{})
		},
	}
}

func needTerminal(what string) error {
	if !term.IsTerminal(int(os.Stdin.Fd())) || !term.IsTerminal(int(os.Stdout.Fd())) {
		return errors.New(what + " needs a terminal; from a script use `hangdog run -- CMD` or `hangdog config set KEY VALUE`")
	}
	return nil
}
