package watch

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
)

// endCheckTree kills whatever a command check left running: its process
// group (pgid, bash's: what it put in the background), then every process
// started since the check began (since, in clock ticks) that carries the
// check's mark in its environment — a child in a session of its own
// (setsid) or a daemon double-forked out of one, which a process group
// does not hold. Each round kills what it finds; a process forked in
// between is found by the next, until a round finds none. A process that
// clears its environment (env -i) escapes: this ends what a check leaves
// by accident; the command is the user's own.
func endCheckTree(pgid int, mark string, since uint64) {
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	want := []byte(checkMarkEnv + "=" + mark)
	for range maxTreeRounds {
		if killMarked(want, since) == 0 {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// maxTreeRounds bounds the rounds of endCheckTree against a fork bomb.
const maxTreeRounds = 50

// killMarked kills the processes started at or after since whose
// environment holds want as one entry, and says how many it found.
func killMarked(want []byte, since uint64) int {
	d, err := os.Open("/proc")
	if err != nil {
		return 0
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	self := os.Getpid()
	found := 0
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil || pid == self {
			continue
		}
		if ticks, err := bgtasks.ProcStartTicks(pid); err != nil || ticks < since {
			continue
		}
		// A zombie's environment reads empty: one killed already is not
		// found again.
		env, err := os.ReadFile("/proc/" + name + "/environ")
		if err != nil || !hasEntry(env, want) {
			continue
		}
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			found++
		}
	}
	return found
}

// hasEntry reports whether a NUL-separated environment holds entry.
func hasEntry(env, entry []byte) bool {
	for len(env) > 0 {
		var e []byte
		e, env, _ = bytes.Cut(env, []byte{0})
		if bytes.Equal(e, entry) {
			return true
		}
	}
	return false
}

// procStartTicks is when pid started, in clock ticks since boot.
func procStartTicks(pid int) uint64 {
	t, _ := bgtasks.ProcStartTicks(pid)
	return t
}
