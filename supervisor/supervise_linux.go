//go:build linux

package supervisor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/supervisor/activity"
	"github.com/hangdog/hangdog/supervisor/proto"
)

// Timings of a task's life. The drain gives a command's last bytes time to
// arrive after it exits; the grace is how long a stopped tree gets between
// the polite signal and SIGKILL; the notice pause batches output notices
// while output streams. Events carry the last lines of output.
const (
	drainQuiet   = 100 * time.Millisecond
	drainMax     = 2 * time.Second
	defaultGrace = 2 * time.Second
	noticePause  = 2 * time.Millisecond
	trimAfter    = time.Second
	// pruneEvery is how often, at most, some supervisor of a home removes
	// its expired tasks: listing every task is not free.
	pruneEvery     = time.Hour
	eventTailLines = 10
	eventTailBytes = 64 << 10
)

// supervisor is the state of one supervisor process.
type supervisor struct {
	reg  *bgtasks.Registry
	spec proto.Spec

	// stdinEnded: end of input was sent once (endStdin); the check loop
	// alone reads and sets it.
	stdinEnded bool

	master *os.File
	output *os.File
	// resultFile is where the result goes; nil if it could not be made.
	resultFile *bgtasks.ResultFile
	activity   *activity.Tracker
	pid        int
	self       int

	lastRead atomic.Int64 // unix nanos of the last output read
	// noTerminal: no person's terminal shows the output (not interactive,
	// or detached from it), so the supervisor answers cursor queries
	// (cursorreport_linux.go).
	noTerminal  atomic.Bool
	stopReading atomic.Bool  // set by the drain: stop reading the PTY
	wake        *readerWake  // wakes the reader for stopReading (readwake_linux.go)
	written     atomic.Int64 // output bytes in output.log
	unlogged    atomic.Int64 // output bytes the log could not take (logOutput)
	logErr      error        // the log's first failed write; readOutput's until it is done
	outputReady chan struct{}
	readerDone  chan struct{}
	exited      chan unix.WaitStatus // the command's own exit, once
	// reaped is sent to (without blocking) once reap has collected a
	// child: what keepLeftOver waits on instead of polling.
	reaped chan struct{}

	inflight sync.WaitGroup // control requests being answered; the process waits for them

	linkMu sync.Mutex
	link   net.Conn // the caller; nil once detached or gone

	mu         sync.Mutex
	meta       bgtasks.Meta
	killReason string
	killDone   chan struct{}
	ended      chan struct{} // closed once the result is on disk
	result     bgtasks.Result
}

// Main is the supervisor process: `hangdog __supervise`, with the caller link
// as fd 3. It sets up everything that does not depend on the task while its
// caller registers the task, then runs the task it is handed. It returns the
// process exit status.
func Main() int {
	var st unix.Stat_t
	if err := unix.Fstat(3, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFSOCK {
		fmt.Fprintln(os.Stderr, "hangdog supervisor: no caller link on fd 3; a supervisor is started by hangdog, not by hand")
		return 1
	}
	f := os.NewFile(3, "caller-link")
	env := prepare()
	// A plain blocking read: the caller's write wakes this thread itself,
	// where a read through the network poller waits for whichever thread
	// polls next.
	h, err := readHandover(f)
	if errors.Is(err, proto.ErrOtherBuild) {
		proto.WriteFrame(f, proto.FrameFailed, []byte(proto.ErrOtherBuild.Error()))
		return 1
	}
	if err != nil {
		// The caller let go before handing over a task (bad input, or it
		// died): nothing was registered, so there is nothing to record.
		return 0
	}
	if h.OwnEnv {
		takeEnv(h.Env)
	}
	link, err := net.FileConn(f)
	f.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, "hangdog supervisor: open caller link:", err)
		return 1
	}
	reg := bgtasks.Opened(h.Home)
	return newSupervisor(reg, h, link).run(env)
}

// takeEnv makes env this process's environment, as if it had been exec'd
// with it: the command inherits it (startCommand) and the settings read
// from it later (the remote model's key, the debug switches) see it.
// Nothing before the hand-over reads the environment but the Go runtime,
// which is why a spare is used only when the runtime's variables agree
// (taskctl.Pending.Fits).
func takeEnv(env []string) {
	os.Clearenv()
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			os.Setenv(k, v)
		}
	}
}

// readHandover waits for the caller's first frame, the task to run. The
// frame reader reads exactly one frame, so nothing after it is lost to
// readLink.
func readHandover(c io.Reader) (proto.Handover, error) {
	var h proto.Handover
	kind, p, err := proto.NewFrameReader(c).Next()
	if err != nil {
		return h, err
	}
	if kind != proto.FrameHandover {
		return h, fmt.Errorf("first frame %q is not a hand-over: %w", kind, proto.ErrCorruptLink)
	}
	if h, err = proto.DecodeHandover(p); err != nil {
		return h, fmt.Errorf("decode hand-over: %w", err)
	}
	return h, nil
}

// logToTask sends this process's stdout and stderr (and so a crash's report)
// to the task's supervisor.log. Failing that they stay on /dev/null: a log
// is never a reason not to run the task.
func logToTask(path string) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	unix.Dup3(int(f.Fd()), 1, 0)
	unix.Dup3(int(f.Fd()), 2, 0)
}

func newSupervisor(reg *bgtasks.Registry, h proto.Handover, link net.Conn) *supervisor {
	return &supervisor{
		reg: reg, spec: h.Spec, meta: taskMeta(h.Task), link: link,
		activity:    activity.NewTracker(),
		self:        os.Getpid(),
		readerDone:  make(chan struct{}),
		outputReady: make(chan struct{}, 1),
		exited:      make(chan unix.WaitStatus, 1),
		reaped:      make(chan struct{}, 1),
		wake:        newReaderWake(),
		ended:       make(chan struct{}),
	}
}

// environment is what a supervisor sets up before it knows its task.
type environment struct {
	sigchld, sigterm chan os.Signal
	// signalsReady is closed once the signals above are caught. Catching
	// one costs two wake-ups of the runtime's signal thread, 0.1-0.2 ms
	// here, and the start-up has no use for them: they are caught once the
	// command runs, beside it. Until then SIGCHLD goes unnoticed (reap
	// sweeps once when it is ready) and the runtime's defaults apply to the
	// rest, which only a deliberate kill could send: the supervisor has no
	// terminal and a process group of its own.
	signalsReady  chan struct{}
	master, slave *os.File
	// ctty: the slave is this process's controlling terminal, so the
	// command is started as its foreground group rather than as the
	// session leader (startCommand).
	ctty bool
	err  error // the first failure, reported once there is a task
}

func prepare() *environment {
	env := &environment{
		sigchld:      make(chan os.Signal, 16),
		sigterm:      make(chan os.Signal, 1),
		signalsReady: make(chan struct{}),
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		env.err = fmt.Errorf("become child subreaper: %w", err)
		return env
	}
	unignoreSignals() // before the command starts: see sigreset_linux.go
	env.master, env.slave, env.err = openPTY()
	if env.err == nil {
		// The supervisor, not the command, leads the terminal's session:
		// when a session leader exits the kernel hangs up the terminal's
		// foreground group, which would kill whatever the command left
		// running (`server &`) before anyone could be told of it. It is a
		// session leader without a terminal (spawn starts it with
		// setsid); if that ever fails, the command leads as before.
		env.ctty = unix.IoctlSetInt(int(env.slave.Fd()), unix.TIOCSCTTY, 0) == nil
	}
	return env
}

func catchSignals(env *environment) {
	defer close(env.signalsReady)
	// The supervisor has no terminal and must outlive whoever started it, so
	// the signals that would end or stop it are caught and dropped rather
	// than ignored: an ignored disposition would be inherited by the command
	// (a bash that ignores SIGINT), a caught one is reset to the default by
	// exec. SIGPIPE, SIGUSR1 and SIGUSR2 need nothing: the runtime drops
	// them unless they are caught (SIGPIPE ends a Go program only on a
	// write to stdout or stderr, which are a file here).
	stray := make(chan os.Signal, 16)
	signal.Notify(stray, syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT,
		syscall.SIGTTOU, syscall.SIGTTIN, syscall.SIGTSTP)
	go func() {
		for range stray {
		}
	}()
	signal.Notify(env.sigchld, syscall.SIGCHLD)
	signal.Notify(env.sigterm, syscall.SIGTERM)
}

// run is the task's life, and the owner of every goroutine of the process.
// It starts them here, in the order start-up needs, and these end as it
// waits for them:
//   - readOutput: when no process holds the PTY slave, or the drain stops it
//     (drain waits on readerDone)
//   - watch: when run cancels watchCtx once the command exited (watched)
//   - serveControl: when run closes the listener (serving); the goroutine
//     per request it starts is counted in s.inflight, which run waits for
//     at most 2 s
//   - trimImage: a timer's, stopped once the command exits (it rarely
//     fires: most commands end within trimAfter)
//
// These end with the process, on purpose: they hold nothing that must be
// flushed (every record is on disk, and the caller told, before run
// returns), and each would otherwise need a way to be woken:
//   - catchSignals' drain of stray signals, and the SIGTERM waiter
//   - reap, which waits for SIGCHLD
//   - notifyOutput, which waits for output
//   - readLink, which waits for the caller's frames; it ends early when the
//     caller goes
//   - a kill started by readLink's stop frame or a check's verdict, which
//     ends once nothing of the task is left
func (s *supervisor) run(env *environment) int {
	if env.err != nil {
		return s.failStart(env.err)
	}
	s.master = env.master
	slave := env.slave
	if err := setWinsize(s.master, s.spec.Rows, s.spec.Cols); err != nil {
		slave.Close()
		return s.failStart(err)
	}
	var err error
	s.pid, err = s.startCommand(slave, env.ctty)
	slave.Close()
	if err != nil {
		return s.failStart(err)
	}
	// The log is created beside the command's own start, not before it: its
	// first output waits in the PTY until the reader starts, and creating a
	// file is not free (see bgtasks.ResultFile).
	s.output, err = os.OpenFile(s.reg.OutputPath(s.meta.ID), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		// A task without its log would lose its output: stop it now.
		unix.Kill(-s.pid, unix.SIGKILL)
		return s.failStart(fmt.Errorf("open output log: %w", err))
	}
	// The command is running from here on: tell the caller, start moving its
	// output, and only then do the bookkeeping, which overlaps with it.
	go catchSignals(env)
	started, _ := json.Marshal(proto.Started{TaskID: s.meta.ID, PID: s.pid})
	s.sendFrame(proto.FrameStarted, started)
	// Only now: creating a file is not free, and a failure to start is
	// recorded in the task's result anyway.
	logToTask(s.reg.SupervisorLogPath(s.meta.ID))
	go s.reap(env)
	go s.notifyOutput()
	s.noTerminal.Store(!s.spec.Interactive)
	go s.readOutput()
	go s.readLink()
	go func() {
		<-env.sigterm
		s.kill(syscall.SIGTERM, defaultGrace, "its supervisor received SIGTERM")
	}()
	// Listen before the record says running, so whoever sees "running" can
	// reach the task.
	serving := make(chan struct{})
	ln, err := s.listen()
	if err != nil {
		// Without a socket the task still runs and is recorded; only remote
		// control is lost, so say so instead of killing the command.
		fmt.Fprintln(os.Stderr, "hangdog supervisor: control socket:", err)
		s.sendFrame(proto.FrameWarning, []byte(fmt.Sprintf("task %s cannot be reached by bg kill, send or detach: %v; it runs on, and ends with its command or this caller", s.meta.ID, err)))
	} else {
		go func() {
			defer close(serving)
			s.serveControl(ln)
		}()
	}
	s.recordRunning()
	// Made while the command runs, so that recording its end creates no file
	// on the path of the caller waiting for it.
	if rf, err := s.reg.PrepareResult(s.meta.ID); err == nil {
		s.resultFile = rf
	} else {
		fmt.Fprintln(os.Stderr, "hangdog supervisor:", err)
	}
	// Trimming the image pays off only for a supervisor that stays; most
	// commands end before this fires.
	trim := time.AfterFunc(trimAfter, trimImage)

	watchCtx, stopWatch := context.WithCancel(context.Background())
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		s.watch(watchCtx)
	}()

	status := <-s.exited
	exitAt := time.Now()
	trim.Stop()
	stopWatch()
	<-watched
	s.drain(s.keepLeftOver(status, exitAt))
	s.mu.Lock()
	killDone := s.killDone
	s.mu.Unlock()
	if killDone != nil {
		<-killDone
	}
	s.finish(status)
	if ln != nil {
		ln.Close()
		<-serving // no request is admitted after this
		os.Remove(s.socketPath())
		// A `bg kill` is answered only once the task has ended; let such
		// answers leave before the process does.
		answered := make(chan struct{})
		go func() {
			s.inflight.Wait()
			close(answered)
		}()
		select {
		case <-answered:
		case <-time.After(2 * time.Second):
		}
	}
	s.pruneExpired()
	return 0
}

// pruneExpired removes the home's expired tasks, if that is due. It runs
// once the task has ended and its caller has been told, so it delays nobody.
func (s *supervisor) pruneExpired() {
	expired, err := s.reg.PruneExpired(s.spec.KeepEnded, pruneEvery)
	if err != nil {
		fmt.Fprintln(os.Stderr, "hangdog supervisor: remove expired tasks:", err)
	}
	days := s.spec.KeepEnded.Hours() / 24
	if len(expired.Tasks) > 0 {
		fmt.Fprintf(os.Stderr, "hangdog supervisor: removed %d tasks that ended more than %g days ago (tasks.keepDays): %s\n",
			len(expired.Tasks), days, strings.Join(expired.Tasks, " "))
	}
	if expired.Events > 0 {
		fmt.Fprintf(os.Stderr, "hangdog supervisor: dropped %d events older than %g days from the event log (tasks.keepDays)\n", expired.Events, days)
	}
}
