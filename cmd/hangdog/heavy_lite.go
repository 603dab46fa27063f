//go:build lite

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"
)

// fullBinaryName is the complete CLI, installed next to the lite one.
const fullBinaryName = "hangdog-full"

func init() {
	rootRun = func(*cobra.Command, []string) error { return execFull(os.Args[1:]) }
	handOver("shell", shellShort, false)
	handOver("settings", settingsShort, false)
	handOver("mcp", mcpShort, false)
	handOver("mcp-proxy", mcpProxyShort, false)
}

// handOver registers a command the lite hangdog lists but hangdog-full
// runs: the shell, the settings screen, the MCP server, the watchers.
func handOver(use, short string, hidden bool) {
	registerCommand(func() *cobra.Command {
		cmd := &cobra.Command{
			Use:    use,
			Short:  short,
			Hidden: hidden,
			// hangdog-full parses the flags and prints the help.
			DisableFlagParsing: true,
			RunE:               func(*cobra.Command, []string) error { return execFull(os.Args[1:]) },
		}
		// `hangdog help mcp` shows the same help as `hangdog mcp --help`.
		cmd.SetHelpFunc(func(*cobra.Command, []string) {
			err := execFull([]string{use, "--help"})
			fmt.Fprintln(os.Stderr, "hangdog:", err)
			os.Exit(exitHangdogError)
		})
		return cmd
	})
}

// execFull replaces this process with hangdog-full, given args and the same
// environment and descriptors: to the caller (a terminal, an MCP client) it
// is still the hangdog process it started. It returns only on failure.
func execFull(args []string) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find hangdog's own path to start %s: %w", fullBinaryName, err)
	}
	full := filepath.Join(filepath.Dir(self), fullBinaryName)
	err = syscall.Exec(full, append([]string{os.Args[0]}, args...), os.Environ())
	return fmt.Errorf("%s needs %s next to it (%s): %w; reinstall hangdog, which puts its programs side by side (make install, the .deb, the release archive or the npm package)", os.Args[0], fullBinaryName, full, err)
}
