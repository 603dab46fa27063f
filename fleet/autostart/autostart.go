// Package autostart owns the start on demand of a home's forwarder (the
// process that publishes the home's events to events.sink, package fleet)
// and its lock: <home>/fleet/forward.lock, held by the running forwarder
// for its life. It links no NATS code, so the lite hangdog, which calls
// Ensure as it starts a task, stays as small and as fast as without a
// sink.
package autostart

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/internal/safefile"
)

// Consumer is the forwarder's cursor in the home's event log
// (<home>/consumers/fleet-forward.cursor): the last seq the stream
// acknowledged.
const Consumer = "fleet-forward"

// Names in the fleet's directory of a home.
const (
	dirName  = "fleet"
	lockName = "forward.lock"
	logName  = "forward.log"
)

// Dir is the fleet's directory in a home: the forwarder's lock and log,
// the home's fleet id.
func Dir(home string) string { return filepath.Join(home, dirName) }

// LockPath is the forwarder's lock; it holds the running forwarder's pid.
func LockPath(home string) string { return filepath.Join(Dir(home), lockName) }

// LogPath is where a forwarder started by Ensure writes.
func LogPath(home string) string { return filepath.Join(Dir(home), logName) }

// ErrHeld: another forwarder runs for this home.
var ErrHeld = errors.New("the home's forwarder is already running")

// Claim takes the home's forwarder lock for this process until release
// (or its end, even by kill -9: the kernel drops the flock). A lock held
// by another process is refused with ErrHeld naming its pid.
func Claim(home string) (release func(), err error) {
	f, err := openLock(home)
	if err != nil {
		return nil, err
	}
	ok, err := safefile.TryLock(f)
	if err != nil || !ok {
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("the forwarder lock: %w", err)
		}
		return nil, fmt.Errorf("%w (%s)", ErrHeld, holder(home))
	}
	pid := []byte(strconv.Itoa(os.Getpid()) + "\n")
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt(pid, 0)
	}
	return func() { _ = f.Truncate(0); f.Close() }, nil
}

func openLock(home string) (*os.File, error) {
	if err := os.MkdirAll(Dir(home), 0o700); err != nil {
		return nil, fmt.Errorf("fleet directory: %w", err)
	}
	f, err := os.OpenFile(LockPath(home), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open the forwarder lock: %w", err)
	}
	return f, nil
}

func holder(home string) string {
	b, _ := os.ReadFile(LockPath(home))
	if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
		return "pid " + strconv.Itoa(pid)
	}
	return "a process that has not written its pid yet"
}

// Running reports whether a forwarder holds the home's lock.
func Running(home string) (bool, error) {
	release, err := Claim(home)
	if errors.Is(err, ErrHeld) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	release()
	return false, nil
}

// Ensure makes sure the home's forwarder runs, starting this program's
// `fleet forward` (detached: a session of its own, its output appended to
// LogPath) when none holds the lock. Before it starts one it registers the
// forwarder's cursor (at the end of the log the first time), so an event
// that comes before the forwarder is up is still published. Two callers
// racing may both start one; the second finds the lock held and leaves.
//
// The forwarder is not a task: it serves every session of the home.
func Ensure(reg *bgtasks.Registry) error {
	home := reg.Home()
	running, err := Running(home)
	if err != nil || running {
		return err
	}
	if _, err := reg.Cursor(Consumer); err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find hangdog to start its forwarder: %w", err)
	}
	log, err := os.OpenFile(LogPath(home), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("forwarder log: %w", err)
	}
	defer log.Close()
	cmd := exec.Command(exe, "fleet", "forward")
	cmd.Dir = home // pins no directory of the caller's
	cmd.Env = append(os.Environ(), "HANGDOG_HOME="+home)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start the forwarder (hangdog fleet forward): %w", err)
	}
	go func() { _ = cmd.Wait() }() // reaps it in a long-lived caller
	return nil
}
