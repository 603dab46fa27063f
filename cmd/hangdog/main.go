// Command hangdog runs shell commands under a supervisor that detaches them to
// the background when they get stuck, instead of blocking their caller.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/hangdog/hangdog/internal/hiddenarg"
	"github.com/hangdog/hangdog/jev/remote"
	"github.com/hangdog/hangdog/supervisor"
)

func main() {
	// Without hangdog-supervisor installed beside it, hangdog is its own
	// supervisor, re-executed; it skips the CLI entirely.
	if len(os.Args) == 2 && os.Args[1] == hiddenarg.Supervise {
		os.Exit(supervisor.Main())
	}
	// A supervisor asks a remote decision model through hangdog, so that it
	// links no HTTP client itself.
	if len(os.Args) == 2 && os.Args[1] == hiddenarg.Ask {
		os.Exit(remote.ServeAsk(os.Stdin, os.Stdout, os.Getenv))
	}
	os.Exit(run(os.Args[1:]))
}

// run executes the CLI and turns its outcome into a process exit code.
func run(args []string) int {
	root := newRootCmd()
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return 0
	}
	var ec exitCode
	if errors.As(err, &ec) {
		return int(ec)
	}
	fmt.Fprintln(os.Stderr, "hangdog:", err)
	return exitHangdogError
}

// Exit codes of hangdog itself; a supervised command's own code passes through.
const (
	exitHangdogError = 125 // bad input or hangdog could not do what was asked
	exitWaitTimeout  = 124 // bg wait --timeout expired (as timeout(1) does)
)

// exitCode is returned by a command that has already reported what it needs to
// and only has to set the process exit status.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }
