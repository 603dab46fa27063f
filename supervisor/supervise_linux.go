//go:build linux

package supervisor

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/supervisor/activity"
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
	dir  string
	reg  *bgtasks.Registry
	spec Spec

	master *os.File
	output *os.File
	// resultFile is where the result goes; nil if it could not be made.
	resultFile *bgtasks.ResultFile
	activity   *activity.Tracker
	pid        int
	self       int

	lastRead    atomic.Int64 // unix nanos of the last output read
	stopReading atomic.Bool  // set by the drain: stop reading the PTY
	wake        *readerWake  // wakes the reader for stopReading (readwake_linux.go)
	written     atomic.Int64 // output bytes in output.log
	unlogged    atomic.Int64 // output bytes the log could not take (logOutput)
	logErr      error        // the log's first failed write; readOutput's until it is done
	outputReady chan struct{}
	readerDone  chan struct{}
	exited      chan unix.WaitStatus // the command's own exit, once

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
	if errors.Is(err, errOtherBuild) {
		writeFrame(f, frameFailed, []byte(errOtherBuild.Error()))
		return 1
	}
	if err != nil {
		// The caller let go before handing over a task (bad input, or it
		// died): nothing was registered, so there is nothing to record.
		return 0
	}
	link, err := net.FileConn(f)
	f.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, "hangdog supervisor: open caller link:", err)
		return 1
	}
	reg := bgtasks.Opened(h.Home)
	return newSupervisor(reg, reg.TaskDir(h.Meta.ID), h, link).run(env)
}

// readHandover waits for the caller's first frame, the task to run. The
// frame reader reads exactly one frame, so nothing after it is lost to
// readLink.
func readHandover(c io.Reader) (handover, error) {
	var h handover
	fr := frameReader{r: c}
	kind, p, err := fr.next()
	if err != nil {
		return h, err
	}
	if kind != frameHandover {
		return h, fmt.Errorf("first frame %q is not a hand-over: %w", kind, errCorruptLink)
	}
	if h, err = decodeHandover(p); err != nil {
		return h, fmt.Errorf("decode hand-over: %w", err)
	}
	return h, nil
}

// logToTask sends this process's stdout and stderr (and so a crash's report)
// to the task's supervisor.log. Failing that they stay on /dev/null: a log
// is never a reason not to run the task.
func logToTask(dir string) {
	f, err := os.OpenFile(filepath.Join(dir, "supervisor.log"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	unix.Dup3(int(f.Fd()), 1, 0)
	unix.Dup3(int(f.Fd()), 2, 0)
}

func newSupervisor(reg *bgtasks.Registry, dir string, h handover, link net.Conn) *supervisor {
	return &supervisor{
		dir: dir, reg: reg, spec: h.Spec, meta: h.Meta, link: link,
		activity:    activity.NewTracker(),
		self:        os.Getpid(),
		readerDone:  make(chan struct{}),
		outputReady: make(chan struct{}, 1),
		exited:      make(chan unix.WaitStatus, 1),
		ended:       make(chan struct{}),
		wake:        newReaderWake(),
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
	err           error // the first failure, reported once there is a task
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
	s.pid, err = s.startCommand(slave)
	slave.Close()
	if err != nil {
		return s.failStart(err)
	}
	// The log is created beside the command's own start, not before it: its
	// first output waits in the PTY until the reader starts, and creating a
	// file is not free (see bgtasks.ResultFile).
	s.output, err = os.OpenFile(filepath.Join(s.dir, "output.log"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		// A task without its log would lose its output: stop it now.
		unix.Kill(-s.pid, unix.SIGKILL)
		return s.failStart(fmt.Errorf("open output log: %w", err))
	}
	// The command is running from here on: tell the caller, start moving its
	// output, and only then do the bookkeeping, which overlaps with it.
	go catchSignals(env)
	started, _ := json.Marshal(startedInfo{TaskID: s.meta.ID, PID: s.pid})
	s.sendFrame(frameStarted, started)
	// Only now: creating a file is not free, and a failure to start is
	// recorded in the task's result anyway.
	logToTask(s.dir)
	go s.reap(env)
	go s.notifyOutput()
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
		s.sendFrame(frameWarning, []byte(fmt.Sprintf("task %s cannot be reached by bg kill, send or detach: %v; it runs on, and ends with its command or this caller", s.meta.ID, err)))
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
	s.drain(exitAt)
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

type startedInfo struct {
	TaskID string `json:"task_id"`
	PID    int    `json:"pid"`
}

// startCommand starts the command as the session leader of the PTY slave.
func (s *supervisor) startCommand(slave *os.File) (int, error) {
	argv := s.spec.Argv
	if s.spec.Shell || len(argv) == 0 {
		argv = []string{"bash", "-c", s.spec.Command}
	}
	// The caller's environment reached this process through exec, never
	// through a file: it may hold API keys.
	env := append(os.Environ(), "HANGDOG_TASK_ID="+s.meta.ID)
	if !hasEnv(env, "TERM") {
		env = append(env, "TERM=xterm-256color")
	}
	path, err := lookPath(argv[0], env)
	if err != nil {
		return 0, err
	}
	fd := slave.Fd()
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{
		Dir:   s.spec.Cwd,
		Env:   env,
		Files: []uintptr{fd, fd, fd},
		Sys:   &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0},
	})
	if err != nil {
		return 0, fmt.Errorf("start %s: %w", argv[0], err)
	}
	return pid, nil
}

func hasEnv(env []string, key string) bool {
	for _, kv := range env {
		if strings.HasPrefix(kv, key+"=") {
			return true
		}
	}
	return false
}

// lookPath resolves name on the command's own PATH, not the supervisor's.
func lookPath(name string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	for i := len(env) - 1; i >= 0; i-- {
		if p, ok := strings.CutPrefix(env[i], "PATH="); ok {
			for _, d := range filepath.SplitList(p) {
				if d == "" {
					d = "."
				}
				c := filepath.Join(d, name)
				if st, err := os.Stat(c); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
					return c, nil
				}
			}
			return "", fmt.Errorf("%s: command not found in PATH", name)
		}
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("%s: command not found in PATH", name)
	}
	return p, nil
}

func (s *supervisor) recordRunning() {
	s.mu.Lock()
	s.meta.PID = s.pid
	s.meta.PGID = s.pid
	s.meta.StartTicks, _ = bgtasks.ProcStartTicks(s.pid)
	s.meta.State = bgtasks.Running // the supervisor's own pid and ticks came with the task
	m := s.meta
	s.mu.Unlock()
	if err := s.reg.WriteMeta(m); err != nil {
		fmt.Fprintln(os.Stderr, "hangdog supervisor:", err)
	}
}

// failStart records a task that never ran, so nobody waits on it forever.
func (s *supervisor) failStart(err error) int {
	logToTask(s.dir)
	msg := err.Error()
	s.sendFrame(frameFailed, []byte(msg))
	res := bgtasks.Result{State: bgtasks.Exited, ExitCode: 127, Ended: time.Now(), Reason: "could not start: " + msg}
	if werr := s.reg.WriteResult(s.meta.ID, res); werr != nil {
		fmt.Fprintln(os.Stderr, "hangdog supervisor:", werr)
	}
	fmt.Fprintln(os.Stderr, "hangdog supervisor:", msg)
	return 1
}

// readOutput copies every byte from the PTY to the output log first, then to
// the tail and the caller. Writing the log before anything else is what lets
// a crash of any hangdog process lose nothing already read.
func (s *supervisor) readOutput() {
	defer close(s.readerDone)
	// One thread for the whole copy loop: otherwise, each time the scheduler
	// hands this goroutine's P to another goroutine while it waits in a read,
	// the goroutine resumes on another thread, and every such hop is a futex
	// wake-up on the path of each 4 KB the PTY hands out.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	fd := -1
	if rc, err := s.master.SyscallConn(); err == nil {
		rc.Control(func(f uintptr) { fd = int(f) })
	}
	if fd < 0 {
		fmt.Fprintln(os.Stderr, "hangdog supervisor: pty master has no descriptor")
		return
	}
	buf := make([]byte, 256<<10)
	pfd := s.wake.pollFds(fd)
	for {
		n, err := s.readAvailable(fd, buf, pfd)
		if n > 0 {
			p := buf[:n]
			s.logOutput(p)
			s.activity.Write(p)
			s.lastRead.Store(time.Now().UnixNano())
			select {
			case s.outputReady <- struct{}{}:
			default: // a notice is already pending; it will carry the new count
			}
		}
		if err != nil {
			return // EIO once every slave fd is closed, or the drain is over
		}
	}
}

// notifyOutput tells the caller how much output the log holds. The caller
// copies it from the log itself, so the command is never slowed by its
// caller and the bytes cross no socket: the supervisor only says "up to N".
// A slow caller just gets fewer, larger notices. It runs until the process
// ends.
func (s *supervisor) notifyOutput() {
	var last int64
	for range s.outputReady {
		n := s.written.Load()
		if n == last {
			continue
		}
		last = n
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], uint64(n))
		s.sendFrame(frameOffset, b[:])
		// While output streams, one notice per pause carries everything
		// that arrived meanwhile: the caller wakes a few hundred times a
		// second instead of once per 4 KB, and the first bytes after a
		// quiet spell still go out at once.
		time.Sleep(noticePause)
	}
}

// errDrained ends the output loop once the drain decides nothing more is due.
var errDrained = errors.New("drain finished")

// readAvailable reads what the PTY has, waiting for output if it has none.
// It reads first and polls only once a read finds nothing: a PTY read with
// no data at hand already waits for the tty layer to finish moving what the
// command wrote (as poll does), so while output streams nearly every read
// returns data and a poll before each would double the system calls per
// 4 KB, which is what the kernel hands out per read. It uses plain system
// calls on this goroutine's thread instead of Go's network poller: parking
// and waking a goroutine for every 4 KB costs more than the copy. The
// master's descriptor stays owned by its *os.File, which is never closed
// while this runs.
func (s *supervisor) readAvailable(fd int, buf []byte, pfd []unix.PollFd) (int, error) {
	for {
		if s.stopReading.Load() {
			return 0, errDrained
		}
		n, err := unix.Read(fd, buf)
		switch {
		case n > 0:
			return n, nil
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
		case err != nil:
			return 0, err // EIO: no process holds the slave any more
		default:
			return 0, io.EOF
		}
		if err := s.waitReadable(pfd); err != nil {
			return 0, err
		}
	}
}

// waitReadable waits until the PTY has output (or has hung up), or the
// drain asks the reader to stop (see readerWake).
func (s *supervisor) waitReadable(pfd []unix.PollFd) error {
	for {
		k, err := unix.Poll(pfd, s.wake.timeout())
		switch {
		case err == unix.EINTR:
		case err != nil:
			return fmt.Errorf("poll pty: %w", err)
		case k > 0 && pfd[0].Revents != 0:
			return nil
		}
		if s.stopReading.Load() {
			return errDrained
		}
	}
}

// drain waits for the command's last output: until the PTY reports that no
// process holds the slave, or output has been quiet for drainQuiet (a
// background child may keep the slave open forever), at most drainMax.
func (s *supervisor) drain(exitAt time.Time) {
	deadline := exitAt.Add(drainMax)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-s.readerDone:
			return
		case now := <-tick.C:
			last := time.Unix(0, s.lastRead.Load())
			if last.Before(exitAt) {
				last = exitAt
			}
			if now.Sub(last) >= drainQuiet || now.After(deadline) {
				s.stopReader()
				<-s.readerDone
				return
			}
		}
	}
}

// reap collects every child the kernel hands the subreaper, and reports the
// command's own status once. A child that ended before SIGCHLD was caught
// is collected by the first sweep.
func (s *supervisor) reap(env *environment) {
	<-env.signalsReady
	for {
		for {
			var ws unix.WaitStatus
			pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
			if pid == s.pid {
				s.exited <- ws
			}
		}
		<-env.sigchld
	}
}

// sendFrame writes a frame to the caller if one is attached; a failed write
// means the caller is gone, which readLink handles.
func (s *supervisor) sendFrame(kind byte, p []byte) {
	s.linkMu.Lock()
	defer s.linkMu.Unlock()
	if s.link == nil {
		return
	}
	if err := writeFrame(s.link, kind, p); err != nil {
		s.link.Close()
		s.link = nil
	}
}

// readLink serves the caller's frames; when the caller goes away while the
// task is still its foreground run, the task goes with it.
func (s *supervisor) readLink() {
	s.linkMu.Lock()
	c := s.link
	s.linkMu.Unlock()
	if c == nil {
		return
	}
	fr := frameReader{r: c}
	for {
		kind, p, err := fr.next()
		if err != nil {
			break
		}
		switch kind {
		case frameInput:
			s.master.Write(p)
		case frameResize:
			if len(p) == 4 {
				setWinsize(s.master, uint16(p[0])<<8|uint16(p[1]), uint16(p[2])<<8|uint16(p[3]))
			}
		case frameStop:
			if len(p) == 1 {
				sig := syscall.Signal(p[0])
				go s.kill(sig, defaultGrace, fmt.Sprintf("its caller was interrupted (%s)", unix.SignalName(sig)))
			}
		}
	}
	s.mu.Lock()
	mode := s.meta.Mode
	s.mu.Unlock()
	select {
	case <-s.ended:
		return
	default:
	}
	if mode == bgtasks.Foreground {
		s.kill(syscall.SIGTERM, defaultGrace, "its caller exited before it finished (a foreground run belongs to its caller; detach it to keep it)")
	}
}

// kill stops the whole tree: sig to every descendant, SIGKILL to whatever is
// left after grace, until nothing of the task remains. Only the first kill
// counts; later ones wait for it.
func (s *supervisor) kill(sig syscall.Signal, grace time.Duration, reason string) {
	s.mu.Lock()
	if s.killDone != nil {
		done := s.killDone
		s.mu.Unlock()
		<-done
		return
	}
	select {
	case <-s.ended:
		s.mu.Unlock()
		return
	default:
	}
	s.killReason = reason
	done := make(chan struct{})
	s.killDone = done
	s.mu.Unlock()
	defer close(done)

	signalTree(s.self, sig)
	hard := time.Now().Add(grace)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for range tick.C {
		if len(descendants(s.self)) == 0 {
			return
		}
		if time.Now().After(hard) {
			signalTree(s.self, syscall.SIGKILL)
		}
	}
}

// finish records the result, announces it, and tells the caller.
func (s *supervisor) finish(ws unix.WaitStatus) {
	res := bgtasks.Result{State: bgtasks.Exited, Ended: time.Now(), OutputBytes: s.written.Load()}
	if ws.Signaled() {
		res.Signal = unix.SignalName(ws.Signal())
		res.ExitCode = 128 + int(ws.Signal())
	} else {
		res.ExitCode = ws.ExitStatus()
	}
	s.mu.Lock()
	if s.killReason != "" {
		res.State = bgtasks.Killed
		res.Reason = s.killReason
	}
	mode := s.meta.Mode
	meta := s.meta
	s.mu.Unlock()
	s.noteUnlogged(&res)

	var err error
	if s.resultFile != nil {
		err = s.resultFile.Write(res)
	} else {
		err = s.reg.WriteResult(s.meta.ID, res)
	}
	if err != nil && !errors.Is(err, bgtasks.ErrAlreadyEnded) {
		fmt.Fprintln(os.Stderr, "hangdog supervisor:", err)
	}
	s.mu.Lock()
	s.result = res
	close(s.ended)
	s.mu.Unlock()

	if mode == bgtasks.Background || res.State == bgtasks.Killed {
		s.announce(meta, res)
	}
	b, _ := json.Marshal(res)
	s.sendFrame(frameEnded, b)
	s.linkMu.Lock()
	if s.link != nil {
		s.link.Close()
		s.link = nil
	}
	s.linkMu.Unlock()
}

func (s *supervisor) announce(meta bgtasks.Meta, res bgtasks.Result) {
	kind := bgtasks.EventExited
	if res.State == bgtasks.Killed {
		kind = bgtasks.EventKilled
	}
	code := res.ExitCode
	ev := bgtasks.Event{
		Kind: kind, TaskID: meta.ID, Command: meta.Command, ExitCode: &code, Signal: res.Signal,
		DurationMS: res.Ended.Sub(meta.Started).Milliseconds(), Reason: res.Reason,
		Tail: s.lastLines(),
	}
	if _, err := s.reg.AppendEvent(ev); err != nil {
		fmt.Fprintln(os.Stderr, "hangdog supervisor:", err)
	}
}

func (s *supervisor) socketPath() string { return filepath.Join(s.dir, "sock") }

// lastLines is the end of the task's output as plain text, for an event or a
// detach notice. It is read back from the log, once, rather than kept in
// memory on the output path.
func (s *supervisor) lastLines() string {
	tail, err := s.reg.TailLines(s.meta.ID, eventTailLines, eventTailBytes)
	if err != nil {
		fmt.Fprintln(os.Stderr, "hangdog supervisor:", err)
	}
	return tail
}
