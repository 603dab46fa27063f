//go:build linux

package faults

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
)

// The faults issue 14 found handled, kept here so they stay handled.

func supervisorPID(t *testing.T, w *world, id string) int {
	t.Helper()
	b, err := os.ReadFile(bgtasks.Opened(w.home).MetaPath(id))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		PID int `json:"supervisor_pid"`
	}
	json.Unmarshal(b, &m)
	return m.PID
}

func pidAlive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] != 'Z'
}

// A caller killed with SIGKILL: its foreground command goes with it, and
// the task is recorded as killed, with the reason.
func TestCallerSIGKILLEndsItsForegroundRun(t *testing.T) {
	w := newWorld(t)
	pidFile := filepath.Join(w.root, "cmd.pid")
	c, id := startRun(t, w, "true", "--", "bash", "-c", "echo $$ > "+pidFile+"; exec sleep 30")
	var cmdPID int
	eventually(t, "the command's pid", 10*time.Second, func() bool {
		b, _ := os.ReadFile(pidFile)
		cmdPID, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return cmdPID > 0
	})
	c.Process.Kill()
	c.Wait()
	eventually(t, "the task to end", 10*time.Second, func() bool { return taskState(t, w, id) == "killed" })
	eventually(t, "the command to be gone", 5*time.Second, func() bool { return !pidAlive(cmdPID) })
}

// A supervisor killed with SIGKILL while ten readers race: the task is
// lost exactly once (one `lost` event), its output kept.
func TestSupervisorSIGKILLIsLostOnceWithOutputKept(t *testing.T) {
	w := newWorld(t)
	id := strings.TrimSpace(w.run("bg", "run", "--", "echo kept-before-the-kill; sleep 30").stdout)
	eventually(t, "the output", 10*time.Second, func() bool {
		return strings.Contains(w.run("bg", "logs", id).stdout, "kept-before-the-kill")
	})
	b, _ := os.ReadFile(bgtasks.Opened(w.home).MetaPath(id))
	var m struct {
		PGID int `json:"pgid"`
	}
	json.Unmarshal(b, &m)
	if m.PGID > 0 {
		defer syscall.Kill(-m.PGID, syscall.SIGKILL) // the orphaned sleep
	}
	syscall.Kill(supervisorPID(t, w, id), syscall.SIGKILL)
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				w.run("bg", "wait", id)
			} else {
				w.run("bg", "ls", "--all", "--json")
			}
		}()
	}
	wg.Wait()
	if st := taskState(t, w, id); st != "lost" {
		t.Fatalf("task %s is %q, want lost", id, st)
	}
	events, _ := os.ReadFile(filepath.Join(w.home, "events.jsonl"))
	if n := strings.Count(string(events), `"kind":"lost"`); n != 1 {
		t.Errorf("%d lost events, want 1:\n%s", n, events)
	}
	if !strings.Contains(w.run("bg", "logs", id).stdout, "kept-before-the-kill") {
		t.Error("the output was not kept")
	}
}

// A daemon that double-forks out of the command and ignores SIGTERM is
// still in the task's tree (the supervisor is a subreaper) and bg kill
// ends it.
func TestDoubleForkedDaemonIsKilled(t *testing.T) {
	w := newWorld(t)
	pidFile := filepath.Join(w.root, "daemon.pid")
	script := `(setsid bash -c 'trap "" TERM; echo $$ > ` + pidFile + `; while :; do sleep 0.2; done' &); echo started; sleep 30`
	id := strings.TrimSpace(w.run("bg", "run", "--", script).stdout)
	var pid int
	eventually(t, "the daemon's pid", 10*time.Second, func() bool {
		b, _ := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return pid > 0
	})
	if r := w.run("bg", "kill", id, "--grace", "300ms"); r.code == 0 && !strings.Contains(r.stdout, "killed") {
		t.Logf("bg kill: %s %s", r.stdout, r.stderr)
	}
	eventually(t, "the daemon to be gone", 10*time.Second, func() bool { return !pidAlive(pid) })
	if st := taskState(t, w, id); !strings.Contains("killed exited", st) || st == "" {
		t.Errorf("task %s is %q after bg kill", id, st)
	}
}

// 30 tasks started at once, 5 followers of the event log: each follower
// sees every task's end once, in sequence, with no gap.
func TestConcurrentTasksWithFollowersNoGapNoDuplicate(t *testing.T) {
	w := newWorld(t)
	w.run("events") // creates the log
	const followers, tasks = 5, 30
	outs := make([]syncBuffer, followers)
	for i := range followers {
		c := w.command(t.Context(), "events", "--follow", "--json")
		c.Stdout = &outs[i]
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { c.Process.Kill(); c.Wait() }()
	}
	time.Sleep(300 * time.Millisecond)
	var wg sync.WaitGroup
	for range tasks {
		wg.Add(1)
		go func() { defer wg.Done(); w.run("bg", "run", "--", "true") }()
	}
	wg.Wait()
	for i := range outs {
		eventually(t, "every follower to see 30 events", 20*time.Second, func() bool {
			return strings.Count(outs[i].String(), "\n") >= tasks
		})
		var seqs []int
		sc := bufio.NewScanner(strings.NewReader(outs[i].String()))
		for sc.Scan() {
			var ev struct {
				Seq int `json:"seq"`
			}
			json.Unmarshal(sc.Bytes(), &ev)
			seqs = append(seqs, ev.Seq)
		}
		for j, s := range seqs {
			if s != j+1 {
				t.Fatalf("follower %d got seqs %v: want 1..%d, once each, in order", i, seqs, tasks)
			}
		}
	}
}

// Binary output, invalid UTF-8 and escape sequences pass byte for byte, to
// the caller and into the log.
func TestBinaryOutputIsByteExact(t *testing.T) {
	w := newWorld(t)
	data := make([]byte, 1<<20)
	rand.Read(data)
	data = append(data, "\xff\xfe\x00\x1b[31m\r\n\xc3("...)
	in := filepath.Join(w.root, "in.bin")
	os.WriteFile(in, data, 0o600)
	c := w.command(t.Context(), "run", "--", "cat", in)
	var out bytes.Buffer
	c.Stdout = &out
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), data) {
		t.Fatalf("the caller got %d bytes, not the %d written byte for byte", out.Len(), len(data))
	}
	var id string
	for _, tk := range listTasks(t, w) {
		id = tk.ID
	}
	c = w.command(t.Context(), "bg", "logs", id, "--raw")
	out.Reset()
	c.Stdout = &out
	if err := c.Run(); err != nil || !bytes.Equal(out.Bytes(), data) {
		t.Fatalf("bg logs --raw: %v, %d bytes, not byte for byte", err, out.Len())
	}
}
