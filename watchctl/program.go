package watchctl

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/internal/hiddenarg"
	"github.com/hangdog/hangdog/supervisor/spawn"
)

// RunnerProgram is the slim program the home's runner task runs, installed
// next to hangdog: it links what the runner runs (this package and what it
// imports) and none of the CLI, the shell or the MCP server, so it keeps
// about 12.5 MB resident with 50 watchers where hangdog-full kept 20
// (docs/benchmarks.md, "Idle watchers").
// Where it is missing, hangdog-full runs the watchers itself (its hidden
// __watch command) and the runner's log says what to reinstall.
const RunnerProgram = spawn.RunnerName

// Main is RunnerProgram's main: it runs the home's watchers (RunHome) when
// started as the runner's task starts it, and returns the exit status.
func Main(args []string) int {
	if len(args) != 1 || args[0] != hiddenarg.Watch {
		fmt.Fprintf(os.Stderr, "%s is started by hangdog to run the watchers; it is not run by hand: use `hangdog watch` (hangdog watch --help)\n", RunnerProgram)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	if err := RunHome(ctx, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", RunnerProgram, err)
		return 125 // as hangdog's own failures
	}
	return 0
}

// RunHome runs the watchers of $HANGDOG_HOME (Service.Run) until none is
// active or ctx ends, writing the runner's log to log and the settings'
// warnings to warn: what RunnerProgram and hangdog-full's __watch run.
func RunHome(ctx context.Context, log, warn io.Writer) error {
	home, err := bgtasks.Home()
	if err != nil {
		return err
	}
	reg, err := bgtasks.Open(home)
	if err != nil {
		return err
	}
	s, err := Open(reg, Options{})
	if err != nil {
		return err
	}
	warnings, err := s.Warnings()
	if err != nil {
		return err
	}
	for _, w := range warnings {
		fmt.Fprintf(warn, "hangdog: warning: %v\n", w)
	}
	if note := fallbackNote(); note != "" {
		_, _ = prefixed{log, "runner"}.Write([]byte(note + "\n"))
	}
	return s.Run(ctx, log)
}

// runnerArgv is the command of the runner's task: RunnerProgram next to
// this program, else this program's own __watch (hangdog-full: a `go
// install`, or an installation without RunnerProgram), which says so in
// the runner's log (fallbackNote). Options.Executable, when set, is run as
// it is.
func (s *Service) runnerArgv() ([]string, error) {
	exe := s.exe
	if exe == "" {
		if slim, err := spawn.Beside(RunnerProgram); err == nil {
			return []string{slim, hiddenarg.Watch}, nil
		}
		var err error
		if exe, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("find hangdog's own path: %w", err)
		}
	}
	// hangdog-full's libraries query a terminal for its colours at
	// start-up and wait seconds for an answer a task's PTY never gives, so
	// it runs with TERM=dumb. (RunnerProgram links none of them.)
	return []string{"env", "TERM=dumb", exe, hiddenarg.Watch}, nil
}

// fallbackNote is the runner's first line when hangdog-full runs it because
// RunnerProgram is not installed next to it; "" otherwise.
func fallbackNote() string {
	self, err := os.Executable()
	if err != nil || filepath.Base(self) == RunnerProgram {
		return ""
	}
	if _, err := spawn.Beside(RunnerProgram); err == nil {
		return "" // started by hand, or by a hangdog from before it
	}
	return fmt.Sprintf("%s is not installed next to %s, so the watchers run in %s, which keeps about 7 MB more resident; reinstall hangdog, which puts its programs side by side (make install, the .deb, the release archive or the npm package)",
		RunnerProgram, self, filepath.Base(self))
}
