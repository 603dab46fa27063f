package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/creack/pty"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/cmd/hangdog/internal/earlyrun"
	"github.com/hangdog/hangdog/internal/rawterm"
	"github.com/hangdog/hangdog/taskctl"
)

func init() { registerCommand(newRunCmd) }

// taskFlags are the flags every command that starts a task shares.
type taskFlags struct {
	cwd     string
	sets    []string
	session string
}

func (f *taskFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.cwd, "cwd", "", "directory to run the command in (default: the current one)")
	cmd.Flags().StringArrayVar(&f.sets, "set", nil, "override a setting for this run, e.g. --set watchdog.action=kill (repeatable)")
	addSessionFlag(cmd, &f.session)
}

type runFlags struct {
	taskFlags
	json        bool
	outputBytes int
	detachAfter time.Duration
	// claudeCode presents the run for Claude Code's Bash tool, as the
	// hook's rewritten command asks (run_claude.go); cwdFile goes with it.
	claudeCode bool
	cwdFile    string
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
			if f.claudeCode {
				return runClaudeCode(pending, args, f)
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
	cmd.Flags().IntVar(&f.outputBytes, "output-bytes", defaultJSONOutput, "with --json: about how many bytes of plain text \"output\" holds; a longer output keeps its first third and its end, the middle marked as left out")
	// Its first name, when only the end was kept; harnesses still pass it.
	cmd.Flags().IntVar(&f.outputBytes, "tail-bytes", defaultJSONOutput, "the same as --output-bytes")
	_ = cmd.Flags().MarkHidden("tail-bytes")
	cmd.Flags().DurationVar(&f.detachAfter, "detach-after", 0, "move the command to the background if it is still running after this long (it is never killed for time); set it below your harness's own tool timeout")
	cmd.Flags().BoolVar(&f.claudeCode, "claude-code", false, "present the run for Claude Code's Bash tool (the hook's rewritten command; needs --session claude-ID)")
	cmd.Flags().StringVar(&f.cwdFile, "cwd-file", "", "with --claude-code: where the command's shell writes the directory it ended in")
	cmd.Flags().MarkHidden("claude-code")
	cmd.Flags().MarkHidden("cwd-file")
	return cmd
}

// prestart returns the supervisor for this run: the one earlyrun started
// while the CLI was still initialising, else a new one.
func prestart() (*taskctl.Pending, error) {
	if p, ok := earlyrun.Take(); ok {
		return taskctl.Adopt(p)
	}
	return taskctl.Prestart(nil)
}

// buildSpec resolves a command line's task, as every front end does; only
// the terminal is the CLI's own.
func buildSpec(args []string, f taskFlags, mode bgtasks.Mode) (taskctl.Spec, error) {
	return buildSpecWith(args, f, mode, nil)
}

// buildSpecWith is buildSpec with the request adjusted by adjust (nil:
// as it is) before it is resolved.
func buildSpecWith(args []string, f taskFlags, mode bgtasks.Mode, adjust func(*taskctl.Request)) (taskctl.Spec, error) {
	sets, err := taskctl.ParseSets(f.sets)
	if err != nil {
		return taskctl.Spec{}, err
	}
	owner, err := callerSession(f.session)
	if err != nil {
		return taskctl.Spec{}, err
	}
	req := taskctl.Request{Argv: args, Cwd: f.cwd, Mode: mode, Sets: sets, Owner: owner}
	req.Interactive = mode == bgtasks.Foreground && term.IsTerminal(int(os.Stdin.Fd()))
	req.Rows, req.Cols = terminalSize()
	if adjust != nil {
		adjust(&req)
	}
	return taskctl.Resolve(req)
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

// defaultJSONOutput is how much plain text of the output --json carries.
const defaultJSONOutput = 32 << 10

// runReport is the --json result of a run.
type runReport struct {
	Status     string `json:"status"` // exited | detached | killed | lost
	ExitCode   *int   `json:"exit_code"`
	Signal     string `json:"signal,omitempty"`
	TaskID     string `json:"task_id"`
	DurationMS int64  `json:"duration_ms"`
	// Output is the output as plain text (taskctl.Shape): whole when it
	// fits --output-bytes, else its head and its end with a marked line
	// between them; a full-screen program's last frame, row by row, when
	// OutputScreen.
	Output      string `json:"output"`
	OutputBytes int64  `json:"output_bytes"`
	// OutputDroppedBytes is how many bytes of the output are not in
	// Output; OutputOmitted says which (a harness reads them from the
	// task's log by offset).
	OutputDroppedBytes int64              `json:"output_dropped_bytes"`
	OutputOmitted      *taskctl.ByteRange `json:"output_omitted,omitempty"`
	OutputScreen       bool               `json:"output_screen,omitempty"`
	// OutputUnloggedBytes: output the log could not keep (a full disk),
	// included in OutputBytes and in what the caller got.
	OutputUnloggedBytes int64  `json:"output_unlogged_bytes,omitempty"`
	Reason              string `json:"reason,omitempty"`
	// Wait is what a detached run waits for (prompt, pager, editor,
	// secret, service…), so a harness can fit its next step to it.
	Wait string `json:"wait,omitempty"`
	// LeftRunning: the command exited (ExitCode) and these processes it
	// started still run; the task stays running until they end.
	LeftRunning []taskctl.LeftProc `json:"left_running,omitempty"`
}

func runForeground(ctx context.Context, pending *taskctl.Pending, spec taskctl.Spec, f runFlags) error {
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
	defer controlRun(reg, link, f.detachAfter)()

	if !f.json {
		link.CopyOutputTo(os.Stdout)
	}
	p := &runPresenter{reg: reg, link: link, f: f, started: started, report: runReport{TaskID: link.TaskID}}
	out, err := link.Follow(func(ev taskctl.Event) error {
		if ev.Kind == taskctl.EventWarning {
			fmt.Fprintln(os.Stderr, "hangdog:", ev.Message)
		}
		return nil
	})
	if errors.Is(err, taskctl.ErrOutputClosed) {
		// Nobody reads our output any more: the caller is as good as
		// gone, and a foreground run goes with its caller.
		return exitCode(exitHangdogError)
	}
	if err != nil {
		return err
	}
	return taskctl.Present[error](out, p)
}

// runPresenter says how a run came back: on stderr for a person, as one
// JSON object with --json, and always as the exit status.
type runPresenter struct {
	reg     *bgtasks.Registry
	link    *taskctl.Link
	f       runFlags
	started time.Time
	report  runReport
}

// finish writes the --json report, with the output as taskctl.Shape
// shows it.
func (p *runPresenter) finish() error {
	p.report.DurationMS = time.Since(p.started).Milliseconds()
	if !p.f.json {
		return nil
	}
	limit := max(p.f.outputBytes, 0)
	w, err := runOutputWindow(p.reg, p.link, int64(limit))
	if err != nil {
		return err
	}
	shown := taskctl.Shape(w, limit, p.link.TaskID, cliCalls{})
	p.report.Output = shown.Text
	p.report.OutputBytes = w.Total
	p.report.OutputOmitted, p.report.OutputScreen = shown.Omitted, shown.Screen
	if o := shown.Omitted; o != nil {
		p.report.OutputDroppedBytes = o.To - o.From
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(p.report); err != nil {
		return fmt.Errorf("write JSON result: %w", err)
	}
	return nil
}

func (p *runPresenter) Failed(o taskctl.Outcome) error {
	return fmt.Errorf("could not start the command: %s", o.Message)
}

func (p *runPresenter) Detached(o taskctl.Outcome) error {
	d := o.Detach
	p.report.Status = "detached"
	p.report.Reason = d.Reason
	p.report.Wait = d.Wait
	p.report.ExitCode, p.report.LeftRunning = d.ExitCode, d.LeftRunning
	if !p.f.json {
		fmt.Fprintf(os.Stderr, "\nhangdog: %s moved to the background after %s: %s\n  %s\n",
			d.TaskID, taskctl.RoundDuration(time.Duration(d.ElapsedMS)*time.Millisecond), d.Reason, taskctl.NextSteps(d.Wait, d.TaskID, cliCalls{}))
	}
	if err := p.finish(); err != nil {
		return err
	}
	if d.ExitCode != nil {
		// The command itself has ended: its status is the run's, as
		// for any command that exits, whatever it left running.
		return exitCode(*d.ExitCode)
	}
	return nil
}

func (p *runPresenter) Ended(o taskctl.Outcome) error {
	r := o.Result
	code := r.ExitCode
	p.report.Status = string(r.State)
	p.report.ExitCode = &code
	p.report.Signal = r.Signal
	p.report.Reason = r.Reason
	p.report.OutputUnloggedBytes = r.OutputUnloggedBytes
	reportUnlogged(os.Stderr, o.TaskID, r)
	if err := p.finish(); err != nil {
		return err
	}
	if r.State == bgtasks.Killed && !p.f.json && !o.FromRecord {
		fmt.Fprintf(os.Stderr, "hangdog: %s was killed: %s\n", o.TaskID, r.Reason)
	}
	return exitCode(code)
}

// Lost: the record on disk says what is known, and the output is still
// there.
func (p *runPresenter) Lost(o taskctl.Outcome) error {
	p.report.Status = "lost"
	p.report.Reason = fmt.Sprintf("%v; output kept in %s", o.Err, p.link.OutputPath())
	if err := p.finish(); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "hangdog: %s: %s\n", o.TaskID, p.report.Reason)
	return exitCode(exitHangdogError)
}

// detachRun moves a run that outlived --detach-after to the background. A
// failure means the run is ending anyway, so there is nothing to report.
func detachRun(reg *bgtasks.Registry, id string, after time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	taskctl.DetachRun(ctx, reg, id, taskctl.WithJudgeSaw(reg, id, fmt.Sprintf("still running after --detach-after %s", after)))
}

// passTerminal puts the caller's terminal in raw input mode (output
// processing stays on, so the command's bare \n still starts a new line),
// forwards keystrokes and window size, and returns the restore function.
func passTerminal(link *taskctl.Link) (func(), error) {
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

// cliCalls are the commands a person (or a script) types on a task, for
// taskctl.NextSteps.
type cliCalls = taskctl.CLICalls

// controlRun passes the caller's signals on to the run and, with
// detachAfter, moves it to the background once that long has passed; the
// returned func stops the timer. The signal relay is never stopped: the
// process exits when the run ends, and signal.Stop would cost a round trip
// with the runtime's signal thread per signal on the way out. A signal that
// comes after the end finds the link closed.
func controlRun(reg *bgtasks.Registry, link *taskctl.Link, detachAfter time.Duration) (stop func()) {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		for s := range sigs {
			link.Stop(s.(syscall.Signal))
		}
	}()
	if detachAfter <= 0 {
		return func() {}
	}
	timer := time.AfterFunc(detachAfter, func() { detachRun(reg, link.TaskID, detachAfter) })
	return func() { timer.Stop() }
}
