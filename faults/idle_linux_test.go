//go:build linux

package faults

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
)

// switches is how many times every thread of pid has been switched out,
// voluntarily or not: each time it slept and woke, or was preempted.
func switches(t *testing.T, pid int) int {
	t.Helper()
	dirs, err := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/status")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no threads for pid %d", pid)
	}
	n := 0
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) == 2 && strings.HasSuffix(f[0], "ctxt_switches:") {
				v, _ := strconv.Atoi(f[1])
				n += v
			}
		}
	}
	return n
}

// An idle background task's supervisor sleeps: at most 2 wake-ups a second
// (it was about 65: a 50 ms poll timeout, and the runtime's sysmon behind
// it). scripts/idle-bench.sh measures 50 of them over 30 s.
func TestIdleSupervisorsSleep(t *testing.T) {
	w := newWorld(t)
	var pids []int
	for range 3 {
		id := strings.TrimSpace(w.run("bg", "run", "--", "sleep", "60").stdout)
		defer w.run("bg", "kill", id)
		b, err := os.ReadFile(bgtasks.Opened(w.home).MetaPath(id))
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			PID int `json:"supervisor_pid"`
		}
		json.Unmarshal(b, &m)
		pids = append(pids, m.PID)
	}
	time.Sleep(1500 * time.Millisecond) // past start-up and the image trim
	before := make([]int, len(pids))
	for i, p := range pids {
		before[i] = switches(t, p)
	}
	const d = 3 * time.Second
	time.Sleep(d)
	for i, p := range pids {
		if rate := float64(switches(t, p)-before[i]) / d.Seconds(); rate > 2 {
			t.Errorf("supervisor %d woke %.1f times a second while its command slept; want ≤ 2", p, rate)
		}
	}
}
