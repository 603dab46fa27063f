package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/hangdog/hangdog/bgtasks"
)

// openRegistry opens the registry at the home hangdog resolves from the
// environment (HANGDOG_HOME, XDG_STATE_HOME, ~/.local/state).
func openRegistry() (*bgtasks.Registry, error) {
	h, err := bgtasks.Home()
	if err != nil {
		return nil, err
	}
	return bgtasks.Open(h)
}

// taskArgs checks that a command got a task id first and, with more > 0, at
// least that many arguments after it, and says how to call it otherwise.
func taskArgs(more int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return fmt.Errorf("%s needs a task id, e.g. `%s`; `hangdog bg ls` lists tasks", cmd.CommandPath(), what)
		}
		if !bgtasks.ValidID(args[0]) {
			return fmt.Errorf("%q is not a task id (they look like t3); `hangdog bg ls` lists tasks", args[0])
		}
		if more == 0 && len(args) > 1 {
			return fmt.Errorf("%s takes one task id, got %d arguments; e.g. `%s`", cmd.CommandPath(), len(args), what)
		}
		if len(args) < 1+more {
			return fmt.Errorf("%s needs more arguments, e.g. `%s`", cmd.CommandPath(), what)
		}
		return nil
	}
}
