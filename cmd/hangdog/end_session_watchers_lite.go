//go:build lite

package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/hangdog/hangdog/bgtasks"
)

// endSessionWatchers hands the whole of `bg end-session` to hangdog-full,
// which links the watchers (the lite hangdog does not): it ends the
// session's watchers and then its tasks. Called before anything is done
// here, so nothing is done twice.
func endSessionWatchers(*cobra.Command, *bgtasks.Registry, string, string) error {
	return execFull(os.Args[1:])
}
