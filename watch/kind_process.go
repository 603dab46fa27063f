package watch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// processTarget is what a process watcher looks for: a pid, the pid in a
// pid file, or a process name (its comm or argv[0] base name).
type processTarget struct {
	pid     int
	pidFile string
	name    string
}

func parseProcessTarget(t string) (processTarget, error) {
	kind, val, ok := strings.Cut(t, ":")
	bad := refuse("target", t, "a process watcher needs pid:N, pidfile:PATH or name:NAME")
	if !ok || val == "" {
		return processTarget{}, bad
	}
	switch kind {
	case "pid":
		n, err := strconv.Atoi(val)
		if err != nil || n <= 0 {
			return processTarget{}, bad
		}
		return processTarget{pid: n}, nil
	case "pidfile":
		return processTarget{pidFile: val}, nil
	case "name":
		return processTarget{name: val}, nil
	}
	return processTarget{}, bad
}

// processSource reports "alive (pid N)" or "dead"; the changed check fires
// on each transition.
type processSource struct{ target processTarget }

func (p *processSource) Observe(ctx context.Context, _ *State) (*Observation, error) {
	var pids []int
	switch {
	case p.target.pid > 0:
		if alive(p.target.pid) {
			pids = []int{p.target.pid}
		}
	case p.target.pidFile != "":
		b, err := os.ReadFile(p.target.pidFile)
		if errors.Is(err, fs.ErrNotExist) {
			break // no pid file: nothing running
		}
		if err != nil {
			return nil, fmt.Errorf("read pid file %s: %w", p.target.pidFile, err)
		}
		n, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err == nil && alive(n) {
			pids = []int{n}
		}
	default:
		pids = byName(p.target.name)
	}
	if len(pids) == 0 {
		return &Observation{Text: "dead"}, nil
	}
	// The pids are not part of the text: a restarted service is still
	// alive, not a change.
	return &Observation{Text: "alive", Payload: fmt.Sprintf("alive (pid %v)", pids)}, nil
}

// alive: signal 0 reaches it (EPERM: it exists, owned by someone else) and
// it is not a zombie.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	if err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return errors.Is(err, fs.ErrPermission)
	}
	if i := strings.LastIndexByte(string(b), ')'); i > 0 && i+2 < len(b) {
		return b[i+2] != 'Z' && b[i+2] != 'X'
	}
	return true
}

// byName lists live processes whose comm or argv[0] base name is name.
func byName(name string) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		dir := "/proc/" + e.Name()
		comm, _ := os.ReadFile(dir + "/comm")
		match := strings.TrimSpace(string(comm)) == name
		if !match {
			cmdline, _ := os.ReadFile(dir + "/cmdline")
			arg0, _, _ := strings.Cut(string(cmdline), "\x00")
			match = arg0 != "" && filepath.Base(arg0) == name
		}
		if match && pid != os.Getpid() && alive(pid) {
			out = append(out, pid)
		}
	}
	return out
}
