package watchctl

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/hangdog/hangdog/internal/hiddenarg"
	"github.com/hangdog/hangdog/supervisor/spawn"
	"github.com/hangdog/hangdog/watchctl/runner"
)

// RunHome is hangdog-full's __watch: the home's runner (runner.RunHome)
// with the fleet's client, which runner.Program does not link.
func RunHome(ctx context.Context, log, warn io.Writer) error {
	return runner.RunHome(ctx, log, warn, runner.Options{Fleet: consumeFleet})
}

// runnerArgv is the command of the runner's task: runner.Program next to
// this program, else this program's own __watch (hangdog-full: a `go
// install`, or an installation without runner.Program), which says so in
// the runner's log. Options.Executable, when set, is run as it is.
func (s *Service) runnerArgv() ([]string, error) {
	exe := s.exe
	if exe == "" {
		if slim, err := spawn.Beside(runner.Program); err == nil {
			return []string{slim, hiddenarg.Watch}, nil
		}
		var err error
		if exe, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("find hangdog's own path: %w", err)
		}
	}
	// hangdog-full's libraries query a terminal for its colours at
	// start-up and wait seconds for an answer a task's PTY never gives, so
	// it runs with TERM=dumb. (runner.Program links none of them.)
	return []string{"env", "TERM=dumb", exe, hiddenarg.Watch}, nil
}
