package main

import "github.com/spf13/cobra"

// Each file that defines a command registers its constructor from init, so
// commands live in files named for them and nobody edits a central list.
var (
	topLevel []func() *cobra.Command
	bgLevel  []func() *cobra.Command
)

func registerCommand(f func() *cobra.Command)   { topLevel = append(topLevel, f) }
func registerBgCommand(f func() *cobra.Command) { bgLevel = append(bgLevel, f) }

// rootRun is what `hangdog` with no subcommand does; the interactive shell
// sets it from its own file. Without it, the root prints its help.
var rootRun func(cmd *cobra.Command, args []string) error

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "hangdog",
		Short: "Run shell commands that come back to you when they get stuck",
		Long: `hangdog runs each command under a pseudo-terminal owned by its own supervisor
process, watches what the process tree does, and moves a command that is stuck,
looping or waiting for input nobody will type into the background instead of
blocking its caller. Background tasks keep running and can be listed, read,
answered, waited on or killed.

` + exitCodesHelp(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	if rootRun != nil {
		root.RunE = rootRun
		root.Args = cobra.NoArgs
	}
	bg := &cobra.Command{
		Use:   "bg",
		Short: "Manage background tasks: run, ls, logs, send, wait, kill, detach, rm, prune",
	}
	for _, f := range bgLevel {
		bg.AddCommand(f())
	}
	root.AddCommand(bg)
	for _, f := range topLevel {
		root.AddCommand(f())
	}
	root.Version = version()       // --version (cli_edges.go)
	refuseUnknownSubcommands(root) // `hangdog bg frobnicate` is an error
	return root
}
