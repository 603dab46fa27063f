package main

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/internal/testbin"
)

// runnerExe creates a file watcher with the hangdog at bin and returns the
// watcher's file, the runner's task and the program its process runs.
func runnerExe(t *testing.T, e *env, bin string) (file, taskID, exe string) {
	t.Helper()
	file = filepath.Join(t.TempDir(), "status")
	if err := os.WriteFile(file, []byte("building\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := testbin.Run(t, bin, e.environ(), filepath.Dir(e.home), "watch", "create", "--kind", "file", file, "--interval", "1s", "--json")
	if r.Code != 0 {
		t.Fatalf("watch create: %d %s %s", r.Code, r.Stdout, r.Stderr)
	}
	var created struct {
		TaskID string `json:"task_id"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &created); err != nil || created.TaskID == "" {
		t.Fatalf("watch create --json: %v: %s", err, r.Stdout)
	}
	t.Cleanup(func() { testbin.Run(t, bin, e.environ(), filepath.Dir(e.home), "watch", "rm", "w1") })
	var pid int
	eventually(t, "the runner's process", 10*time.Second, func() bool {
		var tasks []struct {
			ID    string `json:"id"`
			State string `json:"state"`
			PID   int    `json:"pid"`
		}
		_ = json.Unmarshal([]byte(testbin.Run(t, bin, e.environ(), filepath.Dir(e.home), "bg", "ls", "--json").Stdout), &tasks)
		for _, tk := range tasks {
			if tk.ID == created.TaskID && tk.State == "running" && tk.PID != 0 {
				pid = tk.PID
			}
		}
		if pid == 0 {
			return false
		}
		// Until its exec, the task's pid may still be env's.
		exe, _ = os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "exe"))
		return strings.HasPrefix(filepath.Base(exe), "hangdog")
	})
	return file, created.TaskID, exe
}

// The home's runner is the slim hangdog-watch installed next to hangdog,
// not hangdog-full, and it runs the watchers.
func TestWatchRunnerIsTheSlimProgram(t *testing.T) {
	e := newEnv(t)
	file, taskID, exe := runnerExe(t, e, hangdogBin)
	if want := filepath.Join(testbin.Dir(hangdogBin), "hangdog-watch"); exe != want {
		t.Fatalf("the runner runs %s, want %s", exe, want)
	}
	if err := os.WriteFile(file, []byte("failed\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the fire", 10*time.Second, func() bool {
		return strings.Contains(e.run("events").stdout, "watch_fired")
	})
	if logs := e.run("bg", "logs", taskID).stdout; strings.Contains(logs, "is not installed") {
		t.Errorf("the runner's log says a program is missing:\n%s", logs)
	}
}

// Where hangdog-watch is not installed (an old installation's files, a
// copy of some programs only), hangdog-full runs the watchers, and the
// runner's log names the missing program and how to get it.
func TestWatchRunnerWithoutHangdogWatchIsHangdogFull(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	for _, name := range []string{"hangdog", "hangdog-full", "hangdog-supervisor"} {
		b, err := os.ReadFile(filepath.Join(testbin.Dir(hangdogBin), name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "hangdog")
	file, taskID, exe := runnerExe(t, e, bin)
	if want := filepath.Join(dir, "hangdog-full"); exe != want {
		t.Fatalf("the runner runs %s, want %s", exe, want)
	}
	if err := os.WriteFile(file, []byte("failed\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the fire", 10*time.Second, func() bool {
		return strings.Contains(e.run("events").stdout, "watch_fired")
	})
	logs := e.run("bg", "logs", taskID).stdout
	if !strings.Contains(logs, "hangdog-watch is not installed next to "+exe) || !strings.Contains(logs, "make install") || !strings.Contains(logs, "npm package") {
		t.Errorf("the runner's log does not say what is missing and how to fix it:\n%s", logs)
	}
}

// With serve.sink set, the runner needs the fleet's client, which
// hangdog-watch does not link: it hands itself over to hangdog's __watch
// (the same process: its supervisor keeps it), and the watchers run there.
func TestWatchRunnerWithServeSinkIsHangdogFull(t *testing.T) {
	e := newEnv(t)
	// No fleet answers there: a file watcher needs none.
	e.extra = append(e.extra, "HANGDOG_SERVE_SINK=nats://127.0.0.1:1")
	file, taskID, _ := runnerExe(t, e, hangdogBin)
	want := filepath.Join(testbin.Dir(hangdogBin), "hangdog-full")
	var exe string
	eventually(t, "the runner handed over to hangdog-full", 10*time.Second, func() bool {
		var tasks []struct {
			ID    string `json:"id"`
			State string `json:"state"`
			PID   int    `json:"pid"`
		}
		_ = json.Unmarshal([]byte(e.run("bg", "ls", "--json").stdout), &tasks)
		for _, tk := range tasks {
			if tk.ID == taskID && tk.State == "running" {
				exe, _ = os.Readlink(filepath.Join("/proc", strconv.Itoa(tk.PID), "exe"))
			}
		}
		return exe == want
	})
	if err := os.WriteFile(file, []byte("failed\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the fire", 10*time.Second, func() bool {
		return strings.Contains(e.run("events").stdout, "watch_fired")
	})
}

// The watchdog does not judge the watchers' runner, even where it judges
// background tasks: the runner waits between checks by design, and its
// supervisor would sample it every second.
func TestWatchRunnerIsNotJudgedByTheWatchdog(t *testing.T) {
	e := newEnv(t)
	e.extra = append(e.extra, "HANGDOG_WATCHDOG_WATCHBGTASKS=true")
	_, taskID, _ := runnerExe(t, e, hangdogBin)
	// A judged task's first check is at its supervisor's first tick, a
	// second after its start, and is recorded in checks.log.
	reg, err := bgtasks.Open(e.home)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second)
	if _, err := os.Stat(reg.ChecksPath(taskID)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the runner's task has a checks.log (%v): the watchdog checked it", err)
	}
	// A background task started the same way is judged: the test's
	// setting is in force.
	r := e.run("bg", "run", "--", "sleep", "30")
	id := strings.TrimSpace(r.stdout)
	t.Cleanup(func() { e.run("bg", "kill", id) })
	eventually(t, "a background task's first check", 10*time.Second, func() bool {
		_, err := os.Stat(reg.ChecksPath(id))
		return err == nil
	})
}
