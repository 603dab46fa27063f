package receiver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/hangdog/hangdog/internal/safefile"
	"github.com/hangdog/hangdog/settings"
	"github.com/hangdog/hangdog/supervisor/spawn"
	"github.com/hangdog/hangdog/watch"
)

// ServeCommand is the program Ensure starts and its arguments: this
// program's `serve`, or in the watchers' runner (receiver.Keep), the
// hangdog next to it (spawn.CLI). Tests point it at a binary of theirs.
var ServeCommand = func() (string, []string, error) {
	exe, err := spawn.CLI()
	return exe, []string{"serve"}, err
}

// startTimeout bounds how long Ensure waits for a receiver it started to
// answer; the machine may be loaded.
const startTimeout = 30 * time.Second

// Ensure returns the base URL of the home's receiver, starting `hangdog
// serve` (detached: a session of its own, its output in
// <home>/serve/serve.log) if none answers. Concurrent callers, in any
// processes, take turns under <home>/serve/ensure.lock, so only the first
// starts one. An address file is trusted only when the receiver at that
// address answers as this home's.
//
// The receiver is not a task: it serves every session's links, and a
// task belongs to one (and would end with it).
func Ensure(ctx context.Context, store *watch.Store) (string, error) {
	dir := dirOf(store)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("receiver directory: %w", err)
	}
	unlock, err := lockWait(ctx, filepath.Join(dir, ensureLock))
	if err != nil {
		return "", err
	}
	defer unlock()
	home := HomeID(store.Registry().Home())
	key, err := identityKey(dir)
	if err != nil {
		return "", err
	}
	if a, ok := answering(ctx, dir, key, home); ok {
		return a.URL, nil
	}
	wd, _ := os.Getwd()
	conf, err := settings.Load(settings.Options{Dir: wd, KeepGoing: true})
	if err != nil {
		return "", err
	}
	addr := conf.ServeAddress()
	if _, port, err := net.SplitHostPort(addr); err == nil && port != "0" {
		_, err := prove(ctx, addr, key, home)
		if err == nil {
			return baseURL(addr), nil // answering, its file lost
		}
		if !errors.Is(err, errNotListening) {
			// A link made now would hand its token, its deliveries and
			// its decision to whoever that is.
			return "", fmt.Errorf("serve.address %s is held by a listener hangdog cannot prove is this home's receiver: %v. No link is made against it: if it is another program or another user's, choose a free port with `hangdog config set serve.address 127.0.0.1:PORT`", addr, err)
		}
	}
	exe, args, err := ServeCommand()
	if err != nil {
		return "", fmt.Errorf("find hangdog to start its receiver: %w", err)
	}
	log, err := os.OpenFile(filepath.Join(dir, logFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return "", fmt.Errorf("receiver log: %w", err)
	}
	defer log.Close()
	cmd := exec.Command(exe, args...)
	cmd.Dir = store.Registry().Home() // pins no directory of the caller's
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("start hangdog serve: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }() // reaps it, whenever it leaves
	deadline := time.NewTimer(startTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case err := <-exited:
			return "", fmt.Errorf("hangdog serve exited (%v) before it answered: %s", err, tail(filepath.Join(dir, logFile)))
		case <-deadline.C:
			return "", fmt.Errorf("hangdog serve (pid %d) did not answer within %v; see %s", cmd.Process.Pid, startTimeout, filepath.Join(dir, logFile))
		case <-tick.C:
			if a, ok := answering(ctx, dir, key, home); ok {
				return a.URL, nil
			}
		}
	}
}

// answering reads address.json and asks the address to prove it is this
// home's receiver, the one the file names.
func answering(ctx context.Context, dir string, key []byte, home string) (Address, bool) {
	a, err := readAddress(dir)
	if err != nil {
		return a, false
	}
	id, err := prove(ctx, a.Address, key, home)
	return a, err == nil && id.PID == a.PID
}

// lockWait takes an exclusive flock, giving up when ctx ends.
func lockWait(ctx context.Context, path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := safefile.LockContext(ctx, f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { safefile.Unlock(f); f.Close() }, nil
}

// tail is a log's last lines, for an error.
func tail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "(no log)"
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > 3 {
		lines = lines[len(lines)-3:]
	}
	return strings.Join(lines, " / ")
}
