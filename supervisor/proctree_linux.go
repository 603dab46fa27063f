//go:build linux

package supervisor

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// descendants lists every process below pid, found through the kernel's
// per-thread children lists — never by scanning all of /proc.
func descendants(pid int) []int {
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children(p) {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

func children(pid int) []int {
	taskDir := "/proc/" + strconv.Itoa(pid) + "/task"
	tids, err := os.ReadDir(taskDir)
	if err != nil {
		return nil
	}
	var out []int
	for _, t := range tids {
		b, err := os.ReadFile(taskDir + "/" + t.Name() + "/children")
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if c, err := strconv.Atoi(f); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// parentOf reads the parent pid from /proc/PID/stat.
func parentOf(pid int) (int, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0, false
	}
	pp, err := strconv.Atoi(f[1])
	return pp, err == nil
}

// signalTree sends sig to every descendant of root. Each target is pinned
// with a pidfd and then re-checked to still be a child of a process in the
// tree, so a pid recycled between the walk and the signal is never hit.
// It returns how many processes were signalled.
func signalTree(root int, sig syscall.Signal) int {
	inTree := map[int]bool{root: true}
	n := 0
	for _, pid := range descendants(root) {
		inTree[pid] = true
	}
	for pid := range inTree {
		if pid == root {
			continue
		}
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			continue // gone already
		}
		if pp, ok := parentOf(pid); ok && inTree[pp] {
			if err := unix.PidfdSendSignal(fd, sig, nil, 0); err == nil || !errors.Is(err, unix.ESRCH) {
				n++
			}
		}
		unix.Close(fd)
	}
	return n
}
