package bgtasks

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func openTemp(t *testing.T) *Registry {
	t.Helper()
	r, err := Open(filepath.Join(t.TempDir(), "home"))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// alive returns meta fields naming a supervisor that is certainly running:
// this test process.
func aliveSupervisor(t *testing.T) (int, uint64) {
	t.Helper()
	ticks, err := ProcStartTicks(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	return os.Getpid(), ticks
}

func createRunning(t *testing.T, r *Registry, m Meta) *Task {
	t.Helper()
	m.SupervisorPID, m.SupervisorTicks = aliveSupervisor(t)
	m.State = Running
	task, err := r.Create(m)
	if err != nil {
		t.Fatal(err)
	}
	return task
}

func TestHomePrecedence(t *testing.T) {
	t.Setenv("HANGDOG_HOME", "/x/hd")
	t.Setenv("XDG_STATE_HOME", "/x/state")
	t.Setenv("HOME", "/x/user")
	check := func(want string) {
		t.Helper()
		got, err := Home()
		if err != nil || got != want {
			t.Fatalf("Home() = %q, %v; want %q", got, err, want)
		}
	}
	check("/x/hd")
	t.Setenv("HANGDOG_HOME", "")
	check("/x/state/hangdog")
	t.Setenv("XDG_STATE_HOME", "relative/ignored")
	check("/x/user/.local/state/hangdog")
}

func TestOpenMakesPrivateLayout(t *testing.T) {
	r := openTemp(t)
	task := createRunning(t, r, Meta{Command: "true"})
	if _, err := r.AppendEvent(Event{Kind: EventWarning, TaskID: task.ID}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Undelivered("mcp"); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteResult(task.ID, Result{State: Exited}); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{r.Home(), r.tasksDir(), r.LogsDir(), r.consumersDir(), task.Dir} {
		assertMode(t, dir, 0o700|fs.ModeDir)
	}
	for _, file := range []string{r.lockPath(), r.counterPath(), r.eventsPath(), task.MetaPath(), task.ResultPath(),
		filepath.Join(r.consumersDir(), "mcp.cursor")} {
		assertMode(t, file, 0o600)
	}
}

func assertMode(t *testing.T, path string, want fs.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode() != want {
		t.Errorf("%s has mode %v, want %v", path, fi.Mode(), want)
	}
}

func TestOpenUnusableHomeSaysWhatToDo(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(file, "home")
	_, err := Open(home)
	if err == nil {
		t.Fatal("Open under a regular file succeeded")
	}
	msg := err.Error()
	if !strings.Contains(msg, home) || !strings.Contains(msg, "set HANGDOG_HOME to a writable directory") || strings.Contains(msg, "\n") {
		t.Fatalf("error %q should be one line naming %s and the fix", msg, home)
	}
}

func TestCreateAndGet(t *testing.T) {
	r := openTemp(t)
	task, err := r.Create(Meta{Command: "npm test", Shell: true, Cwd: "/src", Mode: Foreground})
	if err != nil {
		t.Fatal(err)
	}
	if task.ID != "t1" || task.State() != Starting || task.Started.IsZero() {
		t.Fatalf("created %+v, want t1, starting, with a start time", task.Meta)
	}
	got, err := r.Get("t1")
	if err != nil {
		t.Fatal(err)
	}
	if got.Command != "npm test" || !got.Shell || got.Cwd != "/src" || got.Mode != Foreground || got.Dir != task.Dir {
		t.Fatalf("Get returned %+v", got)
	}
	if filepath.Base(got.OutputPath()) != "output.log" || filepath.Base(got.SocketPath()) != "sock" {
		t.Fatalf("paths: %s %s", got.OutputPath(), got.SocketPath())
	}
}

func TestGetUnknownOrMalformedID(t *testing.T) {
	r := openTemp(t)
	for _, id := range []string{"t9", "../etc", "t0", "x1", ""} {
		_, err := r.Get(id)
		if !errors.Is(err, ErrNotFound) {
			t.Fatalf("Get(%q) = %v, want ErrNotFound", id, err)
		}
	}
	_, err := r.Get("t9")
	if want := "no task t9; `hangdog bg ls` lists tasks"; err.Error() != want {
		t.Fatalf("message %q, want %q", err, want)
	}
}

func TestIDsNeverReused(t *testing.T) {
	r := openTemp(t)
	for range 3 {
		createRunning(t, r, Meta{Command: "x"})
	}
	if err := r.WriteResult("t3", Result{State: Exited}); err != nil {
		t.Fatal(err)
	}
	if err := r.Remove("t3"); err != nil {
		t.Fatal(err)
	}
	next, err := r.Create(Meta{Command: "y"})
	if err != nil {
		t.Fatal(err)
	}
	if next.ID != "t4" {
		t.Fatalf("after removing t3 the next id is %s, want t4", next.ID)
	}
	// A lost counter must not hand out an id that still has a directory.
	if err := os.Remove(r.counterPath()); err != nil {
		t.Fatal(err)
	}
	again, err := r.Create(Meta{Command: "z"})
	if err != nil {
		t.Fatal(err)
	}
	if again.ID != "t5" {
		t.Fatalf("with the counter gone the next id is %s, want t5", again.ID)
	}
	// A counter behind the directories (restored from a backup) must not
	// either.
	if err := os.WriteFile(r.counterPath(), []byte("1\n"+strings.Repeat("junk", 20)), 0o600); err != nil {
		t.Fatal(err)
	}
	behind, err := r.Create(Meta{Command: "w"})
	if err != nil {
		t.Fatal(err)
	}
	if behind.ID != "t6" {
		t.Fatalf("with the counter behind the next id is %s, want t6", behind.ID)
	}
	if next, err := r.Create(Meta{Command: "v"}); err != nil || next.ID != "t7" {
		t.Fatalf("after repairing the counter: %v, %v; want t7", next, err)
	}
}

func TestWriteMetaReplaces(t *testing.T) {
	r := openTemp(t)
	task, err := r.Create(Meta{Command: "x"})
	if err != nil {
		t.Fatal(err)
	}
	m := task.Meta
	m.State = Running
	m.Mode = Background
	m.DetachReason = "stuck"
	if err := r.WriteMeta(m); err != nil {
		t.Fatal(err)
	}
	var onDisk Meta
	b, err := os.ReadFile(task.MetaPath())
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &onDisk); err != nil {
		t.Fatal(err)
	}
	if onDisk.Mode != Background || onDisk.DetachReason != "stuck" || onDisk.State != Running {
		t.Fatalf("meta.json holds %+v", onDisk)
	}
	if err := r.WriteMeta(Meta{ID: "t77"}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("WriteMeta of an unknown task: %v, want ErrNotFound", err)
	}
	entries, _ := os.ReadDir(task.Dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Fatalf("temp file %s left behind", e.Name())
		}
	}
}

func TestWriteResultFirstWriterWins(t *testing.T) {
	r := openTemp(t)
	task := createRunning(t, r, Meta{Command: "x"})
	if err := r.WriteResult(task.ID, Result{State: Running}); err == nil {
		t.Fatal("a non-final result state was accepted")
	}
	if err := r.WriteResult(task.ID, Result{State: Exited, ExitCode: 3}); err != nil {
		t.Fatal(err)
	}
	err := r.WriteResult(task.ID, Result{State: Killed, ExitCode: 137})
	if !errors.Is(err, ErrAlreadyEnded) {
		t.Fatalf("second WriteResult: %v, want ErrAlreadyEnded", err)
	}
	got, err := r.Get(task.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.State() != Exited || got.Result.ExitCode != 3 || got.Result.Ended.IsZero() {
		t.Fatalf("result %+v, want the first one (exited 3) with an end time", got.Result)
	}
}

func TestListOrder(t *testing.T) {
	r := openTemp(t)
	base := time.Now().Add(-time.Hour)
	mk := func(startOffset time.Duration) string {
		return createRunning(t, r, Meta{Command: "x", Started: base.Add(startOffset)}).ID
	}
	oldRunning := mk(0)               // t1
	endedEarly := mk(time.Minute)     // t2
	newRunning := mk(2 * time.Minute) // t3
	endedLate := mk(3 * time.Minute)  // t4
	for id, ended := range map[string]time.Time{endedEarly: base.Add(10 * time.Minute), endedLate: base.Add(5 * time.Minute)} {
		if err := r.WriteResult(id, Result{State: Exited, Ended: ended}); err != nil {
			t.Fatal(err)
		}
	}
	// endedEarly started earlier but ended later, so it is listed first.
	tasks, err := r.List()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, task := range tasks {
		got = append(got, task.ID)
	}
	want := []string{newRunning, oldRunning, endedEarly, endedLate}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("List order %v, want %v", got, want)
	}
}

func TestMostRecentForeground(t *testing.T) {
	r := openTemp(t)
	if _, err := r.MostRecentForeground(); !errors.Is(err, ErrNotFound) {
		t.Fatalf("with no tasks: %v, want ErrNotFound", err)
	}
	now := time.Now()
	createRunning(t, r, Meta{Command: "old fg", Mode: Foreground, Started: now.Add(-time.Minute)})
	createRunning(t, r, Meta{Command: "bg", Mode: Background, Started: now})
	newest := createRunning(t, r, Meta{Command: "new fg", Mode: Foreground, Started: now.Add(-time.Second)})
	ended := createRunning(t, r, Meta{Command: "ended fg", Mode: Foreground, Started: now.Add(time.Second)})
	if err := r.WriteResult(ended.ID, Result{State: Exited}); err != nil {
		t.Fatal(err)
	}
	got, err := r.MostRecentForeground()
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != newest.ID {
		t.Fatalf("got %s (%s), want %s", got.ID, got.Command, newest.ID)
	}
}

func TestRemoveRefusesRunningTask(t *testing.T) {
	r := openTemp(t)
	task := createRunning(t, r, Meta{Command: "sleep 100"})
	err := r.Remove(task.ID)
	if !errors.Is(err, ErrRunning) {
		t.Fatalf("Remove of a running task: %v, want ErrRunning", err)
	}
	if want := "task t1 is still running; stop it with `hangdog bg kill t1` first"; err.Error() != want {
		t.Fatalf("message %q, want %q", err, want)
	}
	if _, err := os.Stat(task.Dir); err != nil {
		t.Fatalf("refused Remove touched the task: %v", err)
	}
	if err := r.WriteResult(task.ID, Result{State: Exited}); err != nil {
		t.Fatal(err)
	}
	if err := r.Remove(task.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(task.Dir); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("task dir still there: %v", err)
	}
	if _, err := r.Get(task.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get after Remove: %v", err)
	}
	if err := r.Remove(task.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second Remove: %v, want ErrNotFound", err)
	}
}

func TestPrune(t *testing.T) {
	r := openTemp(t)
	now := time.Now()
	running := createRunning(t, r, Meta{Command: "a"})
	old := createRunning(t, r, Meta{Command: "b"})
	recent := createRunning(t, r, Meta{Command: "c"})
	if err := r.WriteResult(old.ID, Result{State: Exited, Ended: now.Add(-2 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteResult(recent.ID, Result{State: Killed, Ended: now.Add(-time.Minute)}); err != nil {
		t.Fatal(err)
	}
	// What a crash in the middle of a removal leaves behind.
	leftover := filepath.Join(r.tasksDir(), removingPrefix+"t99-1-x")
	if err := os.MkdirAll(filepath.Join(leftover, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	removed, err := r.Prune(time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(removed, ",") != old.ID {
		t.Fatalf("Prune(1h) removed %v, want only %s", removed, old.ID)
	}
	if _, err := os.Stat(leftover); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("leftover of an interrupted removal still there: %v", err)
	}
	removed, err = r.Prune(0)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(removed, ",") != recent.ID {
		t.Fatalf("Prune(0) removed %v, want %s", removed, recent.ID)
	}
	if _, err := r.Get(running.ID); err != nil {
		t.Fatalf("running task pruned: %v", err)
	}
}

func TestTailOutputAndLines(t *testing.T) {
	r := openTemp(t)
	task := createRunning(t, r, Meta{Command: "x"})
	tail, dropped, err := r.TailOutput(task.ID, 100)
	if err != nil || len(tail) != 0 || dropped != 0 {
		t.Fatalf("before any output: %q, %d, %v", tail, dropped, err)
	}
	log := "first line\n\x1b[31msecond\x1b[0m\n50%\r100%\nlast"
	if err := os.WriteFile(task.OutputPath(), []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}
	tail, dropped, err = r.TailOutput(task.ID, 10)
	if err != nil {
		t.Fatal(err)
	}
	if string(tail) != log[len(log)-10:] || dropped != int64(len(log)-10) {
		t.Fatalf("TailOutput(10) = %q, %d", tail, dropped)
	}
	all, dropped, err := r.TailOutput(task.ID, 1<<20)
	if err != nil || string(all) != log || dropped != 0 {
		t.Fatalf("TailOutput(1 MiB) = %q, %d, %v", all, dropped, err)
	}
	lines, err := r.TailLines(task.ID, 3, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if lines != "second\n100%\nlast" {
		t.Fatalf("TailLines(3) = %q", lines)
	}
	// Reading only part of the log drops the first, partial line.
	lines, err = r.TailLines(task.ID, 10, int64(len(log)-3))
	if err != nil {
		t.Fatal(err)
	}
	if lines != "second\n100%\nlast" {
		t.Fatalf("TailLines with a cut log = %q", lines)
	}
	if _, _, err := r.TailOutput("t42", 10); !errors.Is(err, ErrNotFound) {
		t.Fatalf("TailOutput of unknown task: %v", err)
	}
}
