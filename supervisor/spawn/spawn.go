// Package spawn starts supervisor processes: a socketpair for the caller
// link, the supervisor program found next to hangdog, and a fork into a
// session of its own.
//
// It imports only errors, os, path, syscall and the leaf internal/hiddenarg
// on purpose. That keeps it
// among the first packages a program initialises, so a `hangdog run` can
// start its supervisor from a package initialiser (cmd/hangdog/internal/
// earlyrun) and the supervisor's start-up overlaps with the rest of the
// CLI's.
package spawn

import (
	"errors"
	"os"
	"path"
	"syscall"

	"github.com/hangdog/hangdog/internal/hiddenarg"
)

// BinaryName is the slim supervisor program installed next to hangdog. It
// links only what a supervisor runs, so it starts faster than the full CLI
// and stays small while it waits.
const BinaryName = "hangdog-supervisor"

// Process is a supervisor that is running and waiting, on the other end of
// Link, for the task it is to run.
type Process struct {
	PID int
	// Link is the caller's end of the socketpair; the supervisor holds the
	// other end as fd 3. Closing it before a hand-over makes the supervisor
	// exit without registering anything.
	Link *os.File
}

// Start starts exe as a supervisor. env is the environment of the
// supervisor and of the command it will run (nil: this process's); it
// travels by exec, never through a file, as it may hold secrets.
//
// syscall.ForkExec rather than os/exec: this runs on every command's
// critical path, and os/exec's first start in a process probes pidfd
// support with an extra fork.
func Start(exe string, env []string) (Process, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return Process{}, &Error{Op: "create caller link", Err: err}
	}
	defer syscall.Close(fds[1])
	// Until it knows its task, the supervisor has no log to write to; it
	// moves its stdout and stderr to the task's supervisor.log on hand-over.
	null, err := syscall.Open(os.DevNull, syscall.O_RDWR|syscall.O_CLOEXEC, 0)
	if err != nil {
		syscall.Close(fds[0])
		return Process{}, &Error{Op: "open " + os.DevNull, Err: err}
	}
	defer syscall.Close(null)
	if env == nil {
		env = os.Environ()
	}
	pid, err := syscall.ForkExec(exe, []string{exe, hiddenarg.Supervise}, &syscall.ProcAttr{
		Env:   env,
		Files: []uintptr{uintptr(null), uintptr(null), uintptr(null), uintptr(fds[1])},
		Sys:   &syscall.SysProcAttr{Setsid: true},
	})
	if err != nil {
		syscall.Close(fds[0])
		return Process{}, &Error{Op: "start supervisor " + exe, Err: err}
	}
	return Process{PID: pid, Link: os.NewFile(uintptr(fds[0]), "supervisor-link")}, nil
}

// Binary is the program a supervisor runs as: hangdog-supervisor next to the
// running binary, else the running binary itself (with SuperviseArg).
func Binary() (string, error) {
	if slim, err := Beside(BinaryName); err == nil {
		return slim, nil
	}
	self, err := os.Executable()
	if err != nil {
		return "", &Error{Op: "find the hangdog binary to start a supervisor", Err: err}
	}
	return self, nil
}

// Beside is the path of the program name installed next to the running
// binary (make install puts hangdog's programs side by side). It is an
// error if no executable file is there.
func Beside(name string) (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", &Error{Op: "find the running hangdog binary", Err: err}
	}
	p := path.Join(path.Dir(self), name)
	st, err := os.Stat(p)
	if err != nil {
		return "", err
	}
	if !st.Mode().IsRegular() || st.Mode()&0o111 == 0 {
		return "", &Error{Op: p, Err: errNotExecutable}
	}
	return p, nil
}

var errNotExecutable = errors.New("not an executable file")

// RunnerName is the slim program that runs a home's watchers
// (cmd/hangdog-watch, started by watchctl), installed next to hangdog.
const RunnerName = "hangdog-watch"

// cliName is the CLI installed next to the slim programs.
const cliName = "hangdog"

// CLI is the program that runs a hangdog command for the running one:
// itself, or, for a slim program that links no CLI (BinaryName,
// RunnerName), the hangdog next to it.
func CLI() (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", &Error{Op: "find the running hangdog binary", Err: err}
	}
	if b := path.Base(self); b != BinaryName && b != RunnerName {
		return self, nil
	}
	cli, err := Beside(cliName)
	if err != nil {
		return "", &Error{Op: "find " + cliName + " next to " + self + " (reinstall hangdog, which puts its programs side by side)", Err: err}
	}
	return cli, nil
}

// Error is a failure to start a supervisor. (fmt would pull in reflect and
// its initialisers ahead of this package.)
type Error struct {
	Op  string
	Err error
}

func (e *Error) Error() string { return e.Op + ": " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }
