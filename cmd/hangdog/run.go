package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/creack/pty"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/cmd/hangdog/internal/earlyrun"
	"github.com/hangdog/hangdog/internal/rawterm"
	"github.com/hangdog/hangdog/internal/termtext"
	"github.com/hangdog/hangdog/settings"
	"github.com/hangdog/hangdog/supervisor"
)

func init() { registerCommand(newRunCmd) }

// taskFlags are the flags every command that starts a task shares.
type taskFlags struct {
	cwd  string
	sets []string
}

func (f *taskFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.cwd, "cwd", "", "directory to run the command in (default: the current one)")
	cmd.Flags().StringArrayVar(&f.sets, "set", nil, "override a setting for this run, e.g. --set watchdog.action=kill (repeatable)")
}

type runFlags struct {
	taskFlags
	json        bool
	tailBytes   int
	detachAfter time.Duration
}

func newRunCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run [flags] -- COMMAND [ARGS...]",
		Short: "Run a command supervised; come back early if it gets stuck",
		Long: `Run a command under a pseudo-terminal owned by its own supervisor process and
stream its output. hangdog exits with the command's exit code (128+N when a
signal N ended it).

One argument is a shell string run by bash -c; several are a program and its
arguments, each kept whole. When stdin is a terminal, what you type goes to the
command; when it is not (an agent's call), nobody types, so a command waiting
for input is found out and detached instead of blocking forever.

A run that is detached (by the watchdog, by ` + "`hangdog bg detach`" + `, or by Ctrl+B in
the shell) returns at once with exit status 0 and the task id; the command
keeps running in the background. Ctrl-C, SIGINT, SIGTERM or SIGHUP to hangdog
stop the command; so does hangdog's own death, because a foreground run
belongs to its caller.`,
		Example: `  hangdog run -- make test
  hangdog run 'npm install && npm test'
  hangdog run --json -- go test ./...      # one JSON object on stdout, for harnesses
  hangdog run --detach-after 100s -- make  # hand it back before a 2-minute tool timeout
  hangdog run --cwd ~/src/app --set watchdog.action=kill -- ./flaky.sh`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			// The supervisor starts first, so its start-up overlaps with
			// resolving settings and registering the task.
			pending, err := prestart()
			if err != nil {
				return err
			}
			spec, err := buildSpec(args, f.taskFlags, bgtasks.Foreground)
			if err != nil {
				pending.Cancel()
				return err
			}
			return runForeground(cmd.Context(), pending, spec, f)
		},
	}
	f.register(cmd)
	cmd.Flags().BoolVar(&f.json, "json", false, "print one JSON object when the run ends (status, exit_code, signal, task_id, duration_ms, output, reason) instead of streaming output")
	cmd.Flags().IntVar(&f.tailBytes, "tail-bytes", 32<<10, "with --json: how many bytes of the output's end to include")
	cmd.Flags().DurationVar(&f.detachAfter, "detach-after", 0, "move the command to the background if it is still running after this long (it is never killed for time); set it below your harness's own tool timeout")
	return cmd
}

// prestart returns the supervisor for this run: the one earlyrun started
// while the CLI was still initialising, else a new one.
func prestart() (*supervisor.Pending, error) {
	if p, ok := earlyrun.Take(); ok {
		return supervisor.Adopt(p)
	}
	return supervisor.Prestart(nil)
}

// buildSpec checks the command and its directory before anything is
// registered, so bad input leaves no task behind.
func buildSpec(args []string, f taskFlags, mode bgtasks.Mode) (supervisor.Spec, error) {
	var spec supervisor.Spec
	switch {
	case len(args) == 0 || (len(args) == 1 && strings.TrimSpace(args[0]) == ""):
		return spec, errors.New("nothing to run: give a command, e.g. `hangdog run -- make test` or `hangdog run 'make && make test'`")
	case len(args) == 1:
		spec.Shell = true
		spec.Command = args[0]
	default:
		spec.Argv = args
		spec.Command = shellJoin(args)
		if _, err := exec.LookPath(args[0]); err != nil {
			return spec, fmt.Errorf("%s: command not found; check the name or your PATH (to run a shell string, pass it as one argument)", args[0])
		}
	}
	cwd := f.cwd
	if cwd == "" {
		var err error
		if cwd, err = os.Getwd(); err != nil {
			return spec, fmt.Errorf("find the current directory: %w", err)
		}
	}
	abs, err := filepath.Abs(cwd)
	if err != nil {
		return spec, fmt.Errorf("--cwd %s: %w", cwd, err)
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return spec, fmt.Errorf("--cwd %s: no such directory; give an existing directory", cwd)
	}
	spec.Cwd = abs
	flags, err := parseSets(f.sets)
	if err != nil {
		return spec, err
	}
	st, err := loadRunSettings(os.Stderr, settings.Options{Dir: abs, Flags: flags})
	if err != nil {
		return spec, err
	}
	spec.Watchdog = st.Watchdog()
	spec.KeepEnded = st.KeepEnded()
	spec.Env = os.Environ()
	spec.Mode = mode
	spec.Interactive = mode == bgtasks.Foreground && term.IsTerminal(int(os.Stdin.Fd()))
	spec.Rows, spec.Cols = terminalSize()
	return spec, nil
}

func parseSets(sets []string) (map[string]string, error) {
	m := map[string]string{}
	for _, kv := range sets {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--set %q: expected KEY=VALUE, e.g. --set watchdog.action=kill", kv)
		}
		m[k] = v
	}
	return m, nil
}

// terminalSize is the caller's terminal size, or a roomy default for agents
// whose output is read, not displayed.
func terminalSize() (rows, cols uint16) {
	for _, f := range []*os.File{os.Stdout, os.Stdin, os.Stderr} {
		if ws, err := pty.GetsizeFull(f); err == nil && ws.Rows > 0 && ws.Cols > 0 {
			return ws.Rows, ws.Cols
		}
	}
	return 24, 80
}

// shellJoin renders argv as a shell would need it typed, for display.
func shellJoin(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && strings.IndexFunc(a, func(r rune) bool { return !isShellSafe(r) }) < 0 {
			parts[i] = a
			continue
		}
		parts[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(parts, " ")
}

func isShellSafe(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r)
}

// runReport is the --json result of a run.
type runReport struct {
	Status             string `json:"status"` // exited | detached | killed | lost
	ExitCode           *int   `json:"exit_code"`
	Signal             string `json:"signal,omitempty"`
	TaskID             string `json:"task_id"`
	DurationMS         int64  `json:"duration_ms"`
	Output             string `json:"output"`
	OutputBytes        int64  `json:"output_bytes"`
	OutputDroppedBytes int64  `json:"output_dropped_bytes"`
	// OutputUnloggedBytes: output the log could not keep (a full disk),
	// included in OutputBytes and in what the caller got.
	OutputUnloggedBytes int64  `json:"output_unlogged_bytes,omitempty"`
	Reason              string `json:"reason,omitempty"`
}

func runForeground(ctx context.Context, pending *supervisor.Pending, spec supervisor.Spec, f runFlags) error {
	reg, err := openRegistry()
	if err != nil {
		pending.Cancel()
		return err
	}
	started := time.Now()
	link, err := pending.Start(reg, spec)
	if err != nil {
		return err
	}
	defer link.Close()

	if spec.Interactive {
		restore, err := passTerminal(link)
		if err != nil {
			return err
		}
		defer restore()
	}
	sigs := make(chan os.Signal, 4)
	// Never stopped: the process exits when the run ends, and signal.Stop
	// would cost a round trip with the runtime's signal thread per signal on
	// the way out. A signal that comes after the end finds the link closed.
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		for s := range sigs {
			link.Stop(s.(syscall.Signal))
		}
	}()

	if f.detachAfter > 0 {
		timer := time.AfterFunc(f.detachAfter, func() { detachRun(reg, link.TaskID, f.detachAfter) })
		defer timer.Stop()
	}

	if !f.json {
		link.CopyOutputTo(os.Stdout)
	}
	report := runReport{TaskID: link.TaskID}
	finish := func() error {
		report.DurationMS = time.Since(started).Milliseconds()
		if !f.json {
			return nil
		}
		tail, dropped, err := runOutputTail(reg, link, int64(max(f.tailBytes, 0)))
		if err != nil {
			return err
		}
		report.Output = termtext.Plain(tail)
		report.OutputBytes = dropped + int64(len(tail))
		report.OutputDroppedBytes = dropped
		enc := json.NewEncoder(os.Stdout)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(report); err != nil {
			return fmt.Errorf("write JSON result: %w", err)
		}
		return nil
	}
	for {
		ev, err := link.Next()
		if errors.Is(err, supervisor.ErrOutputClosed) {
			// Nobody reads our output any more: the caller is as good as
			// gone, and a foreground run goes with its caller.
			return exitCode(exitHangdogError)
		}
		if err != nil {
			return lostRun(reg, link, &report, finish, err)
		}
		switch ev.Kind {
		case supervisor.EventWarning:
			fmt.Fprintln(os.Stderr, "hangdog:", ev.Message)
		case supervisor.EventFailed:
			return fmt.Errorf("could not start the command: %s", ev.Message)
		case supervisor.EventDetached:
			d := ev.Detach
			report.Status = "detached"
			report.Reason = d.Reason
			if !f.json {
				fmt.Fprintf(os.Stderr, "\nhangdog: %s moved to the background after %s: %s\n"+
					"  it keeps running; see `hangdog bg logs %s -f`, answer it with `hangdog bg send %s 'y\\n'`, `hangdog bg wait %s`, or `hangdog bg kill %s`\n",
					d.TaskID, roundDuration(time.Duration(d.ElapsedMS)*time.Millisecond), d.Reason, d.TaskID, d.TaskID, d.TaskID, d.TaskID)
			}
			return finish()
		case supervisor.EventEnded:
			r := ev.Result
			code := r.ExitCode
			report.Status = string(r.State)
			report.ExitCode = &code
			report.Signal = r.Signal
			report.Reason = r.Reason
			report.OutputUnloggedBytes = r.OutputUnloggedBytes
			reportUnlogged(os.Stderr, link.TaskID, r)
			if err := finish(); err != nil {
				return err
			}
			if r.State == bgtasks.Killed && !f.json {
				fmt.Fprintf(os.Stderr, "hangdog: %s was killed: %s\n", link.TaskID, r.Reason)
			}
			return exitCode(code)
		}
	}
}

// detachRun moves a run that outlived --detach-after to the background. A
// failure means the run is ending anyway, so there is nothing to report.
func detachRun(reg *bgtasks.Registry, id string, after time.Duration) {
	t, err := reg.Get(id)
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	supervisor.DetachTask(ctx, t, fmt.Sprintf("still running after --detach-after %s", after))
}

// lostRun reports a run whose supervisor vanished: the record on disk says
// what is known, and the output is still there.
func lostRun(reg *bgtasks.Registry, link *supervisor.Link, report *runReport, finish func() error, cause error) error {
	t, err := reg.Get(link.TaskID)
	if err == nil && t.Result != nil && t.Result.State != bgtasks.Lost {
		code := t.Result.ExitCode
		report.Status, report.ExitCode, report.Signal, report.Reason = string(t.Result.State), &code, t.Result.Signal, t.Result.Reason
		if err := finish(); err != nil {
			return err
		}
		return exitCode(code)
	}
	report.Status = "lost"
	report.Reason = fmt.Sprintf("%v; output kept in %s", cause, filepath.Join(link.Dir, "output.log"))
	if err := finish(); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "hangdog: %s: %s\n", link.TaskID, report.Reason)
	return exitCode(exitHangdogError)
}

// passTerminal puts the caller's terminal in raw input mode (output
// processing stays on, so the command's bare \n still starts a new line),
// forwards keystrokes and window size, and returns the restore function.
func passTerminal(link *supervisor.Link) (func(), error) {
	restoreTTY, err := rawterm.MakeRaw(int(os.Stdin.Fd()))
	if err != nil {
		return nil, err
	}
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-winch:
				if ws, err := pty.GetsizeFull(os.Stdin); err == nil {
					link.Resize(ws.Rows, ws.Cols)
				}
			case <-stop:
				return
			}
		}
	}()
	// Reading stdin blocks without a way to interrupt it; this goroutine lives
	// as long as the hangdog process, which ends with the run.
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := os.Stdin.Read(buf)
			if n > 0 && link.Input(buf[:n]) != nil {
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return func() {
		signal.Stop(winch)
		close(stop)
		restoreTTY()
	}, nil
}

func roundDuration(d time.Duration) time.Duration {
	if d > 10*time.Second {
		return d.Round(time.Second)
	}
	return d.Round(100 * time.Millisecond)
}
