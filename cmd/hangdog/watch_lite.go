//go:build lite

package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

// The watch commands, the watcher runner and the wake worker link net/http
// and the watch package; the lite hangdog lists them and hands them over
// to hangdog-full, as it does the shell (heavy_lite.go).
func init() {
	for _, c := range []struct {
		use, short string
		hidden     bool
	}{
		{"watch", "Watchers: be told once when a file, URL, feed, process or command changes", false},
		{"wake", "Hand new events to a command that wakes an idle agent, one batch at a time", false},
		{"__watch", "Run one watcher", true},
	} {
		registerCommand(func() *cobra.Command {
			cmd := &cobra.Command{
				Use:                c.use,
				Short:              c.short,
				Hidden:             c.hidden,
				DisableFlagParsing: true,
				RunE:               func(*cobra.Command, []string) error { return execFull(os.Args[1:]) },
			}
			cmd.SetHelpFunc(func(*cobra.Command, []string) {
				err := execFull([]string{c.use, "--help"})
				fmt.Fprintln(os.Stderr, "hangdog:", err)
				os.Exit(exitHangdogError)
			})
			return cmd
		})
	}
}
