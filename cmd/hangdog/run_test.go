package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hangdog/hangdog/taskctl"
)

func TestRunPassesExitCodesAndSignals(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		args []string
		code int
	}{
		{[]string{"run", "--", "true"}, 0},
		{[]string{"run", "--", "false"}, 1},
		{[]string{"run", "exit 42"}, 42},
		{[]string{"run", "--", "bash", "-c", "exit 7"}, 7},
		{[]string{"run", "kill -TERM $$"}, 128 + 15},
		{[]string{"run", "kill -KILL $$"}, 128 + 9},
	}
	for _, c := range cases {
		r := e.run(c.args...)
		if r.code != c.code {
			t.Errorf("hangdog %s: exit %d, want %d (stderr %q)", strings.Join(c.args, " "), r.code, c.code, r.stderr)
		}
	}
}

func TestRunJSONReportsTheRun(t *testing.T) {
	e := newEnv(t)
	r := e.run("run", "--json", "printf 'a\\x1b[31mred\\x1b[0m\\n50%%\\r100%%\\n'; kill -INT $$")
	var rep runReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, r.stdout)
	}
	if rep.Status != "exited" || rep.ExitCode == nil || *rep.ExitCode != 130 || rep.Signal != "SIGINT" {
		t.Errorf("report = %+v, want exited 130 SIGINT", rep)
	}
	if rep.Output != "ared\n100%\n" {
		t.Errorf("output = %q, want plain text %q", rep.Output, "ared\n100%\n")
	}
	if !strings.HasPrefix(rep.TaskID, "t") || r.code != 130 {
		t.Errorf("task id %q, exit %d", rep.TaskID, r.code)
	}
}

// A long output keeps its head and its end, the cut marked between them
// with the bytes it leaves out, never the end alone.
func TestRunJSONKeepsHeadAndTail(t *testing.T) {
	e := newEnv(t)
	var raw strings.Builder
	for i := 1; i <= 100000; i++ {
		raw.WriteString(strconv.Itoa(i) + "\n")
	}
	for _, args := range [][]string{
		{"run", "--json", "seq 1 100000"},
		// The flag's first name still caps the text, now head and tail.
		{"run", "--json", "--tail-bytes", "300", "seq 1 100000"},
	} {
		r := e.run(args...)
		var rep runReport
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, r.stdout)
		}
		o := rep.OutputOmitted
		if o == nil || rep.OutputBytes != int64(raw.Len()) || rep.OutputDroppedBytes != o.To-o.From {
			t.Fatalf("%v: bytes %d dropped %d omitted %+v; want %d bytes and the range left out", args, rep.OutputBytes, rep.OutputDroppedBytes, o, raw.Len())
		}
		note := fmt.Sprintf("left out here (bytes %d-%d of the task's log); read it with `hangdog bg logs %s` …]\n", o.From, o.To, rep.TaskID)
		head, tail, ok := strings.Cut(rep.Output, note)
		if !ok {
			t.Fatalf("%v: no marker %q in %q…", args, note, rep.Output[:min(len(rep.Output), 200)])
		}
		head = head[:strings.LastIndex(head, "[…")]
		if !strings.HasPrefix(head, "1\n2\n3\n") || !strings.HasSuffix(tail, "99999\n100000\n") {
			t.Errorf("%v: first or last lines missing: head %.20q… tail …%q", args, head, tail[max(len(tail)-20, 0):])
		}
		if head != raw.String()[:o.From] || tail != raw.String()[o.To:] {
			t.Errorf("%v: shown text is not the output's bytes [0,%d) and [%d,end)", args, o.From, o.To)
		}
	}
}

func TestRunOutputIsByteExact(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	payload := make([]byte, 3<<20)
	rand.Read(payload)
	// Invalid UTF-8, NULs, bare \n and \r, and a 1 MB line.
	payload = append(payload, 0xff, 0xfe, 0, '\n', '\r', 0xc3, '\n')
	payload = append(payload, bytes.Repeat([]byte("x"), 1<<20)...)
	payload = append(payload, '\n')
	file := filepath.Join(dir, "payload")
	if err := os.WriteFile(file, payload, 0o600); err != nil {
		t.Fatal(err)
	}
	r := e.run("run", "--", "cat", file)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !bytes.Equal([]byte(r.stdout), payload) {
		t.Fatalf("stdout differs from the file: got %d bytes, want %d", len(r.stdout), len(payload))
	}
	// The task's log holds the same bytes.
	logs := e.run("bg", "logs", "--raw", "t1")
	if !bytes.Equal([]byte(logs.stdout), payload) {
		t.Fatalf("bg logs --raw differs: got %d bytes, want %d (stderr %s)", len(logs.stdout), len(payload), logs.stderr)
	}
}

func TestRunRejectsBadInput(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"empty command", []string{"run", "--", ""}, "nothing to run"},
		{"no command", []string{"run"}, "nothing to run"},
		{"missing cwd", []string{"run", "--cwd", "/nonexistent/dir", "--", "true"}, "no such directory"},
		{"unknown program", []string{"run", "--", "no-such-program-xyz", "arg"}, "command not found"},
		{"bad setting", []string{"run", "--set", "watchdog.action=explode", "--", "true"}, "explode"},
		{"unknown task", []string{"bg", "kill", "t999"}, "t999"},
		{"send to unknown task", []string{"bg", "send", "t999", "y"}, "t999"},
	}
	for _, c := range cases {
		r := e.run(c.args...)
		if r.code != exitHangdogError || !strings.Contains(r.stderr, c.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 {
			t.Errorf("%s: exit %d stderr %q; want exit %d and one line containing %q", c.name, r.code, r.stderr, exitHangdogError, c.want)
		}
	}
	// None of the refused runs left a task behind, nor the supervisor each
	// started before it knew the input was bad.
	if ls := e.run("bg", "ls", "--json", "--all"); strings.Contains(ls.stdout, `"id"`) {
		t.Errorf("refused runs registered tasks: %s", ls.stdout)
	}
	eventually(t, "no process of this home to be left", 10*time.Second, func() bool {
		return len(e.processes()) == 0
	})
}

// processes lists the live processes started with this env's home: its
// hangdog processes and their supervisors.
func (e *env) processes() []int {
	mark := []byte("HANGDOG_HOME=" + e.home + "\x00")
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, ent := range entries {
		pid, err := strconv.Atoi(ent.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		// A zombie's environment reads empty: it is gone, only not reaped.
		if b, err := os.ReadFile(filepath.Join("/proc", ent.Name(), "environ")); err == nil && bytes.Contains(b, mark) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func TestActingOnAnEndedTaskIsAClearError(t *testing.T) {
	e := newEnv(t)
	if r := e.run("run", "--", "true"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	for _, args := range [][]string{{"bg", "kill", "t1"}, {"bg", "send", "t1", "x"}, {"bg", "detach", "t1"}} {
		r := e.run(args...)
		if r.code != exitHangdogError || !strings.Contains(r.stderr, "already ended") {
			t.Errorf("%v: exit %d stderr %q, want a one-line 'already ended' error", args, r.code, r.stderr)
		}
	}
}

func TestUnwritableHomeIsAClearError(t *testing.T) {
	// A file where the home should be: unwritable even for root.
	e := newEnv(t)
	os.MkdirAll(filepath.Dir(e.home), 0o700)
	if err := os.WriteFile(e.home, []byte("not a dir"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := e.run("run", "--", "true")
	if r.code != exitHangdogError || !strings.Contains(r.stderr, "HANGDOG_HOME") {
		t.Errorf("exit %d stderr %q; want a one-line error naming HANGDOG_HOME", r.code, r.stderr)
	}
}

// startRun starts `hangdog run` in the background of the test and returns it
// once the task is registered and running.
func (e *env) startRun(ctx context.Context, args ...string) (*runningCmd, string) {
	e.t.Helper()
	c := e.command(ctx, append([]string{"run"}, args...)...)
	rc := &runningCmd{}
	c.Stdout, c.Stderr = &rc.stdout, &rc.stderr
	if err := c.Start(); err != nil {
		e.t.Fatal(err)
	}
	rc.cmd = c
	var id string
	eventually(e.t, "the run to be registered", 10*time.Second, func() bool {
		for _, tk := range e.tasks() {
			if tk.State == "running" && tk.Mode == "foreground" {
				id = tk.ID
				return true
			}
		}
		return false
	})
	return rc, id
}

type runningCmd struct {
	cmd            *exec.Cmd
	stdout, stderr syncBuffer
}

type lsTask struct {
	ID     string `json:"id"`
	State  string `json:"state"`
	Mode   string `json:"mode"`
	PID    int    `json:"pid"`
	SupPID int    `json:"supervisor_pid"`
	Result *struct {
		State    string `json:"state"`
		ExitCode int    `json:"exit_code"`
		Reason   string `json:"reason"`
	} `json:"result"`
}

func (e *env) tasks() []lsTask {
	e.t.Helper()
	r := e.run("bg", "ls", "--json", "--all")
	var ts []lsTask
	if r.code != 0 {
		return nil
	}
	if err := json.Unmarshal([]byte(r.stdout), &ts); err != nil {
		e.t.Fatalf("bg ls --json: %v\n%s", err, r.stdout)
	}
	return ts
}

func (e *env) task(id string) lsTask {
	e.t.Helper()
	for _, tk := range e.tasks() {
		if tk.ID == id {
			return tk
		}
	}
	e.t.Fatalf("task %s not listed", id)
	return lsTask{}
}

func TestDetachedTaskOutlivesItsCaller(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	rc, id := e.startRun(ctx, "for i in $(seq 1 30); do echo line $i; sleep 0.05; done; echo done")
	d := e.run("bg", "detach", "testing detach")
	if d.code != 0 || !strings.Contains(d.stdout, id) {
		t.Fatalf("bg detach: exit %d %q %q", d.code, d.stdout, d.stderr)
	}
	if err := rc.cmd.Wait(); err != nil {
		t.Fatalf("caller after detach: %v (stderr %q)", err, rc.stderr.String())
	}
	if !strings.Contains(rc.stderr.String(), id) || !strings.Contains(rc.stderr.String(), "testing detach") {
		t.Errorf("caller stderr %q does not name the task and reason", rc.stderr.String())
	}
	w := e.run("bg", "wait", id, "--timeout", "20s")
	if w.code != 0 {
		t.Fatalf("bg wait: exit %d %s", w.code, w.stderr)
	}
	logs := e.run("bg", "logs", id)
	for i := 1; i <= 30; i++ {
		if !strings.Contains(logs.stdout, "line "+strconv.Itoa(i)+"\n") {
			t.Fatalf("bg logs lacks line %d:\n%s", i, logs.stdout)
		}
	}
	if !strings.HasSuffix(logs.stdout, "done\n") {
		t.Errorf("bg logs does not end with the last line: %q", logs.stdout)
	}
	if tk := e.task(id); tk.Mode != "background" || tk.Result == nil || tk.Result.State != "exited" {
		t.Errorf("task after detach = %+v", tk)
	}
	ev := e.run("events", "--json")
	if !strings.Contains(ev.stdout, `"detached"`) || !strings.Contains(ev.stdout, `"exited"`) {
		t.Errorf("events lack the detach and the completion:\n%s", ev.stdout)
	}
}

func TestKillingTheCallerKillsItsForegroundTask(t *testing.T) {
	e := newEnv(t)
	rc, id := e.startRun(context.Background(), "sleep 300")
	pid := e.task(id).PID
	if !alive(pid) {
		t.Fatalf("command pid %d not alive", pid)
	}
	rc.cmd.Process.Signal(syscall.SIGKILL)
	rc.cmd.Wait()
	eventually(t, "the task to be killed", 15*time.Second, func() bool {
		tk := e.task(id)
		return tk.Result != nil && tk.Result.State == "killed"
	})
	if alive(pid) {
		t.Errorf("command pid %d still alive after its caller was SIGKILLed", pid)
	}
	if r := e.task(id).Result; !strings.Contains(r.Reason, "caller") {
		t.Errorf("reason %q does not mention the caller", r.Reason)
	}
}

func TestSignalToCallerStopsTask(t *testing.T) {
	e := newEnv(t)
	rc, id := e.startRun(context.Background(), "sleep 300")
	rc.cmd.Process.Signal(syscall.SIGTERM)
	err := rc.cmd.Wait()
	if code := exitCodeOf(err); code != 128+15 {
		t.Errorf("caller exit %d after SIGTERM, want 143 (stderr %q)", code, rc.stderr.String())
	}
	if tk := e.task(id); tk.Result == nil || tk.Result.State != "killed" {
		t.Errorf("task = %+v, want killed", tk)
	}
}

func TestBgKillLeavesNothingAlive(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	pidfile := filepath.Join(dir, "grandchild.pid")
	// A double-forked grandchild that ignores SIGTERM, and its own child.
	script := `( trap '' TERM; sleep 300 & echo $! > ` + pidfile + `.2; exec sleep 301 ) & echo $! > ` + pidfile + `; sleep 302`
	r := e.run("bg", "run", "--", "bash", "-c", "("+script+") & wait")
	if r.code != 0 {
		t.Fatalf("bg run: %d %s", r.code, r.stderr)
	}
	id := strings.TrimSpace(r.stdout)
	var pids []int
	eventually(t, "the grandchildren to start", 10*time.Second, func() bool {
		pids = pids[:0]
		for _, f := range []string{pidfile, pidfile + ".2"} {
			b, err := os.ReadFile(f)
			if err != nil {
				return false
			}
			p, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				return false
			}
			pids = append(pids, p)
		}
		return true
	})
	pids = append(pids, e.task(id).PID)
	k := e.run("bg", "kill", id, "--grace", "500ms")
	if k.code != 0 {
		t.Fatalf("bg kill: %d %s", k.code, k.stderr)
	}
	for _, p := range pids {
		if alive(p) {
			t.Errorf("pid %d survived bg kill", p)
		}
	}
	if tk := e.task(id); tk.Result == nil || tk.Result.State != "killed" {
		t.Errorf("task = %+v, want killed", tk)
	}
}

func TestSupervisorKilledTaskIsLostWithOutputIntact(t *testing.T) {
	e := newEnv(t)
	r := e.run("bg", "run", "echo before-crash; sleep 300")
	id := strings.TrimSpace(r.stdout)
	var sup int
	eventually(t, "output to be recorded", 10*time.Second, func() bool {
		l := e.run("bg", "logs", id)
		sup = e.task(id).SupPID
		return strings.Contains(l.stdout, "before-crash") && sup > 0
	})
	syscall.Kill(sup, syscall.SIGKILL)
	eventually(t, "the task to be lost", 10*time.Second, func() bool {
		tk := e.task(id)
		return tk.Result != nil && tk.Result.State == "lost"
	})
	if l := e.run("bg", "logs", id); !strings.Contains(l.stdout, "before-crash") {
		t.Errorf("output lost: %q", l.stdout)
	}
}

func TestSendAnswersAPrompt(t *testing.T) {
	e := newEnv(t)
	r := e.run("bg", "run", `read -p 'Continue? [y/N] ' a; echo "got:$a"; [ "$a" = y ]`)
	id := strings.TrimSpace(r.stdout)
	eventually(t, "the prompt", 10*time.Second, func() bool {
		return strings.Contains(e.run("bg", "logs", id).stdout, "Continue?")
	})
	if s := e.run("bg", "send", id, `y\n`); s.code != 0 {
		t.Fatalf("bg send: %d %s", s.code, s.stderr)
	}
	w := e.run("bg", "wait", id, "--timeout", "10s")
	if w.code != 0 {
		t.Fatalf("bg wait exit %d, want 0 (the answer was y); logs: %s", w.code, e.run("bg", "logs", id).stdout)
	}
	if l := e.run("bg", "logs", id).stdout; !strings.Contains(l, "got:y") {
		t.Errorf("logs %q lack the answer", l)
	}
}

func exitCodeOf(err error) int {
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return -1
}

func TestEventsConsumerGetsEachEventOnce(t *testing.T) {
	e := newEnv(t)
	// A new consumer starts at the end of the log.
	if r := e.run("events", "--consumer", "hook", "--json"); r.code != 0 || r.stdout != "" {
		t.Fatalf("first call: %d %q %q", r.code, r.stdout, r.stderr)
	}
	id := strings.TrimSpace(e.run("bg", "run", "echo finished-work").stdout)
	r := e.run("events", "--consumer", "hook", "--wait", "20s", "--json")
	if r.code != 0 || !strings.Contains(r.stdout, `"task_id":"`+id+`"`) || !strings.Contains(r.stdout, "finished-work") {
		t.Fatalf("waiting consumer: %d %q %q", r.code, r.stdout, r.stderr)
	}
	if again := e.run("events", "--consumer", "hook", "--json"); again.stdout != "" {
		t.Errorf("event delivered twice: %q", again.stdout)
	}
	if other := e.run("events", "--consumer", "other", "--json"); other.stdout != "" {
		t.Errorf("a new consumer got history: %q", other.stdout)
	}
	if bad := e.run("events", "--wait", "1s"); bad.code != exitHangdogError {
		t.Errorf("--wait without --consumer: exit %d", bad.code)
	}
}

// The CLI's detach footer is fitted to what the command waits for, in the
// words taskctl.NextSteps gives every front end: a prompt is answered with
// bg send, not a blanket 'y'.
func TestDetachFooterFitsThePrompt(t *testing.T) {
	e := newEnv(t)
	r := e.run("run", "--set", "watchdog.inputWaitSec=1", "--", `read -p 'Overwrite? [y/N] ' a; echo "got $a"`)
	if r.code != 0 || !strings.Contains(r.stderr, "moved to the background") {
		t.Fatalf("want a detach for a prompt: exit %d %q", r.code, r.stderr)
	}
	id := regexp.MustCompile(`\bt[0-9]+\b`).FindString(r.stderr)
	defer e.run("bg", "kill", id)
	for _, want := range []string{"waiting for an answer", "`hangdog bg send " + id + ` 'ANSWER\n'` + "`", "`hangdog bg kill " + id + "`"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("footer lacks %q: %q", want, r.stderr)
		}
	}
	if strings.Contains(r.stderr, `'y\n'`) {
		t.Errorf("footer still offers a blanket y: %q", r.stderr)
	}
	j := e.run("run", "--json", "--set", "watchdog.inputWaitSec=1", "--", `read -p 'Name? ' a`)
	var rep struct {
		Status, Wait string
		TaskID       string `json:"task_id"`
	}
	if err := json.Unmarshal([]byte(j.stdout), &rep); err != nil || rep.Status != "detached" || rep.Wait != "prompt" {
		t.Errorf("--json report of a detached prompt: %v %q", err, j.stdout)
	}
	if k := e.run("bg", "kill", rep.TaskID); k.code != 0 {
		t.Errorf("bg kill %q: %d %s", rep.TaskID, k.code, k.stderr)
	}
}

// A full-screen program's output in --json is the screen it drew, row by
// row, and says so.
func TestRunJSONShowsAnEditorsScreen(t *testing.T) {
	vi, err := exec.LookPath("vi")
	if err != nil {
		t.Skip("no vi on PATH (.ci/run installs vim-tiny)")
	}
	e := newEnv(t)
	r := e.run("run", "--json", "--set", "watchdog.inputWaitSec=1", "--", vi, "x.txt")
	var rep runReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	defer e.run("bg", "kill", rep.TaskID)
	if rep.Status != "detached" || rep.Wait != "editor" || !rep.OutputScreen {
		t.Fatalf("want vi detached as an editor, its output a screen: %+v", rep)
	}
	rows := strings.Split(rep.Output, "\n")
	if rows[0]+"\n" != taskctl.ScreenNote || slices.Index(rows, "~") < 0 || !slices.ContainsFunc(rows, func(l string) bool { return strings.HasPrefix(l, `"x.txt"`) }) {
		t.Errorf("want the note, then the editor's rows (\"~\" and the status line): %q", rep.Output)
	}
}
