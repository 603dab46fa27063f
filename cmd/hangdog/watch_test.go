package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
)

// A watcher through the lite CLI as users drive it: create prints the
// baseline, its task is in `bg ls`, a change is one event, pause ends the
// task, another session cannot touch it, rm removes it.
func TestWatchCLIFileWatcherLifecycle(t *testing.T) {
	e := newEnv(t)
	e.extra = append(e.extra, "HANGDOG_SESSION=s1")
	path := filepath.Join(t.TempDir(), "status.json")
	if err := os.WriteFile(path, []byte(`{"state":"running"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r := e.run("watch", "create", "--kind", "file", path, "--check", "status", "--path", "state", "--value", "failed,passed", "--interval", "1s", "--json")
	if r.code != 0 {
		t.Fatalf("create: %d %s %s", r.code, r.stdout, r.stderr)
	}
	var created struct {
		ID, Baseline string
		TaskID       string `json:"task_id"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &created); err != nil {
		t.Fatalf("create --json: %v: %s", err, r.stdout)
	}
	if created.ID != "w1" || created.Baseline != "currently running" || created.TaskID == "" {
		t.Fatalf("create said %+v", created)
	}
	// The home's runner is listed at once, to the session too (it is the
	// home's); it reads "starting" until its supervisor has started it,
	// which a loaded machine may take a moment to do.
	if ls := e.run("bg", "ls"); !strings.Contains(ls.stdout, "watch runner") || strings.Contains(ls.stdout, "__watch") {
		t.Fatalf("bg ls does not list the watchers' runner:\n%s", ls.stdout)
	}
	eventually(t, "the watcher's task to be running", 10*time.Second, func() bool {
		return strings.Contains(e.run("bg", "ls").stdout, "running")
	})
	eventually(t, "the runner to start", 10*time.Second, func() bool {
		return strings.Contains(e.run("bg", "logs", created.TaskID).stdout, "watching")
	})
	if err := os.WriteFile(path, []byte(`{"state":"passed"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the fire", 10*time.Second, func() bool {
		return strings.Contains(e.run("events").stdout, "watch_fired")
	})
	evs := e.run("events", "--json").stdout
	if strings.Count(evs, `"watch_fired"`) != 1 || !strings.Contains(evs, `"owner":"s1"`) || !strings.Contains(evs, `"dedupe_key":"w1:fire:1"`) {
		t.Fatalf("events:\n%s", evs)
	}
	other := e.run("watch", "pause", "w1")
	other2 := e.runEnv([]string{"HANGDOG_SESSION=s2"}, "watch", "pause", "w1")
	if other.code != 0 || other2.code == 0 || !strings.Contains(other2.stderr, "no such watcher") {
		t.Fatalf("pause by owner: %+v; by another session: %+v (want not found)", other, other2)
	}
	// Its only watcher paused, the runner leaves.
	eventually(t, "the runner to end after pause", 10*time.Second, func() bool {
		return strings.Contains(e.run("bg", "ls").stdout, "exited")
	})
	// The owner paused it, and knows; its task's clean exit is no news.
	if evs = e.run("events", "--json").stdout; strings.Contains(evs, `"kind":"exited"`) {
		t.Fatalf("the watcher task's clean exit is an event:\n%s", evs)
	}
	ls := e.run("watch", "ls")
	if !strings.Contains(ls.stdout, "paused") || !strings.Contains(ls.stdout, "1/20") {
		t.Fatalf("watch ls:\n%s", ls.stdout)
	}
	if o := e.runEnv([]string{"HANGDOG_SESSION=s2"}, "watch", "ls"); strings.Contains(o.stdout, "w1") {
		t.Errorf("another session lists w1:\n%s", o.stdout)
	}
	if rm := e.run("watch", "rm", "w1", "--json"); rm.code != 0 || !strings.Contains(rm.stdout, `"deleted":true`) {
		t.Fatalf("rm: %+v", rm)
	}
	if show := e.run("watch", "show", "w1"); show.code == 0 {
		t.Errorf("show after rm succeeded: %s", show.stdout)
	}
	refused := e.run("watch", "create", "--kind", "file", path, "--expires", "2026-12-01")
	if refused.code == 0 || !strings.Contains(refused.stderr, "expires_at") {
		t.Errorf("a bare-date expiry: %+v", refused)
	}
	if help := e.run("watch", "create", "--help"); !strings.Contains(help.stdout, "--kind rss") || !strings.Contains(help.stdout, "HANGDOG_WATCH_CURSOR") {
		t.Errorf("create --help teaches no examples per kind:\n%s", help.stdout)
	}
}

// runEnv is run with more environment for this call only; safe to call
// from several goroutines.
func (e *env) runEnv(extra []string, args ...string) result {
	e.t.Helper()
	c := *e
	c.extra = append(append([]string{}, e.extra...), extra...)
	return c.run(args...)
}

// 20 concurrent `watch create`, then `pause`, then `resume` processes,
// five sessions of four: nothing is lost, every watcher ends up active,
// run by the one runner of the home.
func TestWatchCLIConcurrentCreatePauseResume(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	const n = 20
	parallel := func(args func(i int) []string) []result {
		out := make([]result, n)
		done := make(chan int)
		for i := range n {
			go func() {
				out[i] = e.runEnv([]string{fmt.Sprintf("HANGDOG_SESSION=s%d", i%5)}, args(i)...)
				done <- i
			}()
		}
		for range n {
			<-done
		}
		return out
	}
	created := parallel(func(i int) []string {
		path := filepath.Join(dir, fmt.Sprintf("f%d", i))
		if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
			t.Error(err)
		}
		return []string{"watch", "create", "--kind", "file", path, "--json"}
	})
	ids := make([]string, n)
	for i, r := range created {
		var c struct{ ID string }
		if err := json.Unmarshal([]byte(r.stdout), &c); r.code != 0 || err != nil {
			t.Fatalf("create %d: %d %v %s %s", i, r.code, err, r.stdout, r.stderr)
		}
		ids[i] = c.ID
	}
	for _, step := range []string{"pause", "resume"} {
		for i, r := range parallel(func(i int) []string { return []string{"watch", step, ids[i]} }) {
			if r.code != 0 {
				t.Fatalf("%s %s: %d %s", step, ids[i], r.code, r.stderr)
			}
		}
	}
	var all []struct {
		Spec  struct{ ID, Owner string }
		State struct {
			Paused bool
			TaskID string `json:"task_id"`
		}
	}
	if err := json.Unmarshal([]byte(e.run("watch", "ls", "--all", "--json").stdout), &all); err != nil {
		t.Fatal(err)
	}
	if len(all) != n {
		t.Fatalf("%d watchers listed, want %d", len(all), n)
	}
	tasks := map[string]bool{}
	for _, w := range all {
		if w.State.Paused || w.State.TaskID == "" {
			t.Errorf("%s: paused=%v task=%q; want active with the runner's task", w.Spec.ID, w.State.Paused, w.State.TaskID)
		}
		tasks[w.State.TaskID] = true
	}
	if len(tasks) != 1 {
		t.Errorf("the watchers name %d runner tasks, want the one: %v", len(tasks), tasks)
	}
	running := 0
	for _, l := range strings.Split(e.run("bg", "ls").stdout, "\n") {
		if strings.Contains(l, "watch runner") && strings.Contains(l, "running") {
			running++
		}
	}
	if running != 1 {
		t.Errorf("bg ls lists %d runners running, want 1:\n%s", running, e.run("bg", "ls").stdout)
	}
	for i := range n {
		e.runEnv([]string{fmt.Sprintf("HANGDOG_SESSION=s%d", i%5)}, "watch", "rm", ids[i])
	}
	eventually(t, "every watcher task to end", 20*time.Second, func() bool {
		return !strings.Contains(e.run("bg", "ls").stdout, "running")
	})
}

// `hangdog wake` is itself a background task: listed, handing over what
// happens, stopped by bg kill.
func TestWakeCLIRunsAsABackgroundTask(t *testing.T) {
	e := newEnv(t)
	out := filepath.Join(t.TempDir(), "handed")
	r := e.run("wake", "--consumer", "waker", "--run", "cat >> "+out)
	id := strings.TrimSpace(r.stdout)
	if r.code != 0 || !strings.HasPrefix(id, "t") {
		t.Fatalf("wake: %+v", r)
	}
	if ls := e.run("bg", "ls", "--json").stdout; !strings.Contains(ls, `"command": "hangdog wake --consumer waker --run`) {
		t.Fatalf("bg ls:\n%s", ls)
	}
	job := strings.TrimSpace(e.run("bg", "run", "--", "echo", "hi").stdout)
	eventually(t, "the job's end handed over", 10*time.Second, func() bool {
		b, _ := os.ReadFile(out)
		return strings.Contains(string(b), `"task_id":"`+job+`"`)
	})
	if k := e.run("bg", "kill", id); k.code != 0 {
		t.Fatalf("bg kill: %+v", k)
	}
	b, _ := os.ReadFile(out)
	if n := strings.Count(string(b), `"task_id":"`+job+`"`); n != 1 {
		t.Errorf("the job's end handed over %d times", n)
	}
}

// The home's runner killed -9 (a crash, the OOM killer): its watchers
// show as stopped, the next `watch ls` starts it again, and what changed
// while it was down fires, once per watcher.
func TestWatchCLIRunnerKilledIsStartedAgainAndLosesNothing(t *testing.T) {
	e := newEnv(t)
	e.extra = append(e.extra, "HANGDOG_SESSION=s1")
	dir := t.TempDir()
	var ids []string
	task := ""
	for _, name := range []string{"a.txt", "b.txt"} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte("v0"), 0o600); err != nil {
			t.Fatal(err)
		}
		r := e.run("watch", "create", "--kind", "file", path, "--interval", "1s", "--json")
		var c struct {
			ID     string
			TaskID string `json:"task_id"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &c); r.code != 0 || err != nil {
			t.Fatalf("create: %d %v %s %s", r.code, err, r.stdout, r.stderr)
		}
		if task != "" && c.TaskID != task {
			t.Fatalf("the second watcher's runner is %s, the first's %s: want the one", c.TaskID, task)
		}
		ids, task = append(ids, c.ID), c.TaskID
	}
	eventually(t, "the runner to watch both", 20*time.Second, func() bool {
		return strings.Count(e.run("bg", "logs", task).stdout, " watching file ") == 2
	})
	tk, err := bgtasks.Opened(e.home).Get(task)
	if err != nil || tk.PID == 0 {
		t.Fatalf("the runner's task: %v %+v", err, tk)
	}
	if err := syscall.Kill(tk.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the watchers to show as stopped", 20*time.Second, func() bool {
		return strings.Contains(e.run("watch", "show", ids[0]).stdout, "state:     stopped")
	})
	for _, name := range []string{"a.txt", "b.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("v1"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if r := e.run("watch", "ls"); r.code != 0 {
		t.Fatalf("watch ls: %+v", r)
	}
	eventually(t, "a fire per watcher from the runner started again", 20*time.Second, func() bool {
		return strings.Count(e.run("events", "--json").stdout, `"watch_fired"`) >= 2
	})
	time.Sleep(1500 * time.Millisecond) // a check more: nothing extra may come
	evs := e.run("events", "--json").stdout
	for _, id := range ids {
		if n := strings.Count(evs, `"dedupe_key":"`+id+`:fire:1"`); n != 1 {
			t.Errorf("%s fired %d times, want once:\n%s", id, n, evs)
		}
	}
	if show := e.run("watch", "show", ids[0]).stdout; !strings.Contains(show, "state:     active") || strings.Contains(show, "task:      "+task+",") {
		t.Errorf("after the restart, want active under a new runner task:\n%s", show)
	}
	for _, id := range ids {
		e.run("watch", "rm", id)
	}
}
