package main

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/settings"
)

// The release build (scripts/dist.sh) stamps these with -ldflags -X: the
// version without a leading v, the commit (12 hex digits, -dirty when built
// with uncommitted changes) and the commit's date (RFC 3339, UTC). Other builds leave them empty and version falls back to
// what the Go toolchain recorded.
var releaseVersion, releaseCommit, releaseDate string

// version is hangdog's version for --version: the release's version, commit
// and date, else the module version it was built as (what `go install
// …@VERSION` records) with the VCS revision and time when the build recorded
// them.
func version() string {
	v, commit, date := releaseVersion, releaseCommit, releaseDate
	if v == "" {
		v = "dev"
		if bi, ok := debug.ReadBuildInfo(); ok {
			if bi.Main.Version != "" && bi.Main.Version != "(devel)" {
				v = bi.Main.Version
			}
			dirty := ""
			for _, s := range bi.Settings {
				switch s.Key {
				case "vcs.revision":
					commit = s.Value[:min(12, len(s.Value))]
				case "vcs.time":
					date = s.Value
				case "vcs.modified":
					if s.Value == "true" {
						dirty = "-dirty"
					}
				}
			}
			if commit != "" {
				commit += dirty
			}
		}
	}
	switch {
	case commit != "" && date != "":
		v += " (commit " + commit + ", " + date + ")"
	case commit != "":
		v += " (commit " + commit + ")"
	}
	return v
}

// refuseUnknownSubcommands makes every command that only groups others
// (hangdog bg, hangdog config) fail on an argument that names none of them,
// instead of printing its help and exiting 0; with no argument it still
// prints its help.
func refuseUnknownSubcommands(c *cobra.Command) {
	for _, sub := range c.Commands() {
		refuseUnknownSubcommands(sub)
	}
	if !c.HasSubCommands() || c.Run != nil || c.RunE != nil {
		return
	}
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return cmd.Help()
		}
		msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
		if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
			msg += "; did you mean " + strings.Join(s, " or ") + "?"
		}
		return fmt.Errorf("%s; `%s --help` lists its commands", msg, cmd.CommandPath())
	}
}

// checkTail refuses a negative --tail given by the user (the flag's own
// default, -1, means everything).
func checkTail(cmd *cobra.Command, n int) error {
	if n < 0 && cmd.Flags().Changed("tail") {
		return fmt.Errorf("--tail %d: give a number of lines, 0 or more (leave --tail out for everything)", n)
	}
	return nil
}

// detachTarget is the task `bg detach ARG…` means when its first argument
// is not a task id. A single word that is no task id is most likely a
// mistyped or stale id, not a one-word reason: refuse it rather than detach
// whichever run is the most recent.
func detachTarget(reg *bgtasks.Registry, args []string) (*bgtasks.Task, error) {
	if len(args) == 1 && !strings.ContainsAny(args[0], " \t") {
		return nil, fmt.Errorf("unknown task %q: task ids look like t3 (`hangdog bg ls` lists them); to give a reason, put the task id first or use more than one word", args[0])
	}
	return reg.MostRecentForeground()
}

// printConfigPaths is `config path`: the user file's path alone, so that
// $(hangdog config path) is a path; with --all, both files, labelled.
func printConfigPaths(cmd *cobra.Command, all bool) error {
	user := settings.UserFile()
	if !all {
		if user == "" {
			return errors.New("cannot tell where the user config file goes: set HOME or XDG_CONFIG_HOME")
		}
		fmt.Fprintln(cmd.OutOrStdout(), user)
		return nil
	}
	if user == "" {
		user = "unknown (set HOME or XDG_CONFIG_HOME)"
	}
	project := "none"
	wd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("find the working directory to look for %s: %w", settings.ProjectFileName, err)
	}
	if p, ok := settings.FindProjectFile(wd); ok {
		project = p
	}
	tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "user\t%s\nproject\t%s\n", user, project)
	return tw.Flush()
}
