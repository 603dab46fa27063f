//go:build !lite

package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/watchctl"
)

// endSessionWatchers pauses the watchers and links session made, as
// policy (tasks.onSessionEnd) says, and prints each.
func endSessionWatchers(cmd *cobra.Command, reg *bgtasks.Registry, session, policy string) error {
	svc, err := watchctl.Open(reg, watchctl.Options{})
	if err != nil {
		return err
	}
	ended, err := svc.EndSession(session, policy)
	for _, w := range ended {
		fmt.Fprintf(cmd.OutOrStdout(), "%s paused: %s\n", w.Spec.ID, plain(w.Spec.Label()))
	}
	return err
}
