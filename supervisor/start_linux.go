//go:build linux

package supervisor

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/internal/agentprofile"
	"github.com/hangdog/hangdog/internal/peerproc"
	"github.com/hangdog/hangdog/supervisor/proto"
)

// startCommand starts the command on the PTY slave: in a process group of
// its own made the terminal's foreground group when the slave is the
// supervisor's controlling terminal (ctty), else as the session leader.
// As the foreground group it gets what the terminal sends (Ctrl+C is
// SIGINT to it), and its exit hangs nothing up.
func (s *supervisor) startCommand(slave *os.File, ctty bool) (int, error) {
	argv := s.spec.Argv
	if s.spec.Shell || len(argv) == 0 {
		argv = []string{"bash", "-c", s.spec.Command}
	}
	// The caller's environment reached this process through exec (or the
	// hand-over), never through a file: it may hold API keys. A task run
	// inside another task gets its own id and home, not the outer's (the
	// first of two values is the one most programs read).
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, proto.TaskIDEnv+"=") && !strings.HasPrefix(kv, proto.TaskHomeEnv+"=") {
			env = append(env, kv)
		}
	}
	env = append(env, proto.TaskIDEnv+"="+s.meta.ID, proto.TaskHomeEnv+"="+s.reg.Home())
	if s.spec.AgentProfile {
		// Here, not in the caller: a run's supervisor is started before
		// its caller has read the settings that say whether it applies.
		env = agentprofile.Apply(env)
	}
	if !hasEnv(env, "TERM") {
		env = append(env, "TERM=xterm-256color")
	}
	path, err := lookPath(argv[0], env)
	if err != nil {
		return 0, err
	}
	// Marked here, on the supervisor itself, so the command is marked from
	// its first instruction: whatever it or its children later do to
	// their environment, session or parent, the approval page still knows
	// them as a task's. The mark is inert otherwise (peerproc.MarkTask).
	if err := peerproc.MarkTask(); err != nil {
		fmt.Fprintln(os.Stderr, "hangdog supervisor:", err)
	}
	fd := slave.Fd()
	sys := &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if ctty {
		// Foreground's Ctty is the supervisor's descriptor; the child sets
		// the group with signals blocked, so it is not stopped by SIGTTOU.
		sys = &syscall.SysProcAttr{Setpgid: true, Foreground: true, Ctty: int(fd)}
	}
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{
		Dir:   s.spec.Cwd,
		Env:   env,
		Files: []uintptr{fd, fd, fd},
		Sys:   sys,
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
	logToTask(s.reg.SupervisorLogPath(s.meta.ID))
	msg := err.Error()
	s.sendFrame(proto.FrameFailed, []byte(msg))
	res := bgtasks.Result{State: bgtasks.Exited, ExitCode: 127, Ended: time.Now(), Reason: "could not start: " + msg}
	if werr := s.reg.WriteResult(s.meta.ID, res); werr != nil {
		fmt.Fprintln(os.Stderr, "hangdog supervisor:", werr)
	}
	fmt.Fprintln(os.Stderr, "hangdog supervisor:", msg)
	return 1
}
