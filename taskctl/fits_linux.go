//go:build linux

package taskctl

import (
	"bytes"
	"maps"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Fits reports whether a task with environment env (nil: this process's)
// may run under p, a supervisor this process started ahead of the task
// (Prestart), so that nothing about the task differs from one started for
// it now: it is still waiting, it is in this process's cgroup with this
// process's priority, and the variables its Go runtime read when it
// started (GOGC, GOMAXPROCS, GODEBUG, …) are the task's. Everything else
// in the environment is the task's anyway: Start hands it over. A pending
// supervisor that does not fit is Cancelled and a fresh one started.
func (p *Pending) Fits(env []string) bool {
	if p.exited == nil {
		return false // adopted: not this process's child, nothing known
	}
	select {
	case <-p.exited:
		return false
	default:
	}
	if env == nil {
		env = os.Environ()
	}
	if !sameRuntimeEnv(p.env, env) {
		return false
	}
	self, err1 := os.ReadFile("/proc/self/cgroup")
	its, err2 := os.ReadFile("/proc/" + strconv.Itoa(p.pid) + "/cgroup")
	if err1 != nil || err2 != nil || !bytes.Equal(self, its) {
		return false
	}
	selfNice, err1 := syscall.Getpriority(syscall.PRIO_PROCESS, 0)
	itsNice, err2 := syscall.Getpriority(syscall.PRIO_PROCESS, p.pid)
	return err1 == nil && err2 == nil && selfNice == itsNice
}

// sameRuntimeEnv: a and b agree on every GO… variable, which is where the
// Go runtime's settings live.
func sameRuntimeEnv(a, b []string) bool {
	return maps.Equal(goVars(a), goVars(b))
}

func goVars(env []string) map[string]string {
	m := map[string]string{}
	for _, kv := range env {
		if strings.HasPrefix(kv, "GO") {
			k, v, _ := strings.Cut(kv, "=")
			m[k] = v
		}
	}
	return m
}
