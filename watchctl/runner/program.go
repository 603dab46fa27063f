// Package runner is the home's watchers' runner: the one background task
// that checks every active watcher of a home (watch.HomeRunner), with
// each watcher's decision model, a link's companions (the receiver kept
// running, the fleet's deliveries) and the runner's own process settings
// (one P, a low GC goal). It is Program's main (cmd/hangdog-watch)
// and hangdog-full's __watch (through watchctl.RunHome, which adds the
// fleet's client). The watcher service (watchctl) starts it; this package
// links none of the service — no task starts, no fleet client, no
// approval pages — so the program that stays resident while any watcher
// is active maps only what running them needs (docs/benchmarks.md, "Idle
// watchers").
package runner

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
	"github.com/hangdog/hangdog/settings"
	"github.com/hangdog/hangdog/supervisor/spawn"
	"github.com/hangdog/hangdog/watch"
)

// Program is the slim program the home's runner task runs, installed next
// to hangdog: it links this package and what it imports and none of the
// CLI, the shell, the MCP server or the watcher service, so it keeps about
// 11 MB resident with 50 watchers where hangdog-full kept 20
// (docs/benchmarks.md, "Idle watchers"). Where it is missing, hangdog-full
// runs the watchers itself (its hidden __watch command) and the runner's
// log says what to reinstall.
const Program = spawn.RunnerName

// Fleet takes link watcher id's deliveries from the fleet (serve.sink, set
// in conf) into its inbox until ctx ends, writing what happens to log.
type Fleet func(ctx context.Context, store *watch.Store, conf *settings.Settings, id string, log io.Writer)

// Options configure Main and RunHome.
type Options struct {
	// Fleet takes a link's deliveries from the fleet when serve.sink is
	// set. Program links no fleet client and passes none: where the
	// runner's settings set serve.sink, Main hands the runner over to
	// hangdog-full (handOver), which has one.
	Fleet Fleet
}

// Main is Program's main: it runs the home's watchers (RunHome) when
// started as the runner's task starts it, and returns the exit status.
func Main(args []string, opts Options) int {
	if len(args) != 1 || args[0] != hiddenarg.Watch {
		fmt.Fprintf(os.Stderr, "%s is started by hangdog to run the watchers; it is not run by hand: use `hangdog watch` (hangdog watch --help)\n", Program)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	if err := RunHome(ctx, os.Stdout, os.Stderr, opts); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", Program, err)
		return 125 // as hangdog's own failures
	}
	return 0
}

// RunHome runs the watchers of $HANGDOG_HOME until none is active or ctx
// ends, with the settings of this process's directory, writing the
// runner's log to log and the settings' warnings to warn.
func RunHome(ctx context.Context, log, warn io.Writer, opts Options) error {
	home, err := bgtasks.Home()
	if err != nil {
		return err
	}
	reg, err := bgtasks.Open(home)
	if err != nil {
		return err
	}
	store, err := watch.OpenStore(reg)
	if err != nil {
		return err
	}
	dir, _ := os.Getwd()
	conf, err := settings.Load(settings.Options{Dir: dir, KeepGoing: true})
	if err != nil {
		return err
	}
	if conf.ServeSink() != "" && opts.Fleet == nil {
		return handOver()
	}
	store.Limits = watch.LimitsFrom(conf.Watchers())
	for _, w := range conf.Warnings() {
		fmt.Fprintf(warn, "hangdog: warning: %v\n", w)
	}
	if note := fallbackNote(); note != "" {
		_, _ = prefixed{log, "runner"}.Write([]byte(note + "\n"))
	}
	return run(ctx, store, conf, opts, log)
}

// handOver replaces this process, which links no fleet client, with
// hangdog's __watch (the lite hangdog next to it hands it to
// hangdog-full), which takes the links' deliveries from the fleet: the
// same process to the runner's supervisor. It returns only on failure.
func handOver() error {
	cli, err := spawn.CLI()
	if err != nil {
		return fmt.Errorf("serve.sink is set, so the watchers run in hangdog, which takes the links' deliveries from the fleet: %w", err)
	}
	// hangdog-full's libraries query a terminal for its colours at
	// start-up and wait seconds for an answer a task's PTY never gives
	// (watchctl's runnerArgv).
	err = syscall.Exec(cli, []string{cli, hiddenarg.Watch}, append(os.Environ(), "TERM=dumb"))
	return fmt.Errorf("serve.sink is set, so the watchers run in %s, which takes the links' deliveries from the fleet, but it did not start: %w", cli, err)
}

// fallbackNote is the runner's first line when hangdog-full runs it because
// Program is not installed next to it; "" otherwise.
func fallbackNote() string {
	self, err := os.Executable()
	if err != nil || filepath.Base(self) == Program {
		return ""
	}
	if _, err := spawn.Beside(Program); err == nil {
		return "" // started by hand, by a hangdog from before it, or handed over for serve.sink
	}
	return fmt.Sprintf("%s is not installed next to %s, so the watchers run in %s, which keeps about 9 MB more resident; reinstall hangdog, which puts its programs side by side (make install, the .deb, the release archive or the npm package)",
		Program, self, filepath.Base(self))
}
