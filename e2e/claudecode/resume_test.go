//go:build linux

package claudecode

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hangdog/hangdog/internal/testbin"
)

// The wake recipe for a headless Claude Code session, as `hangdog wake
// --help` gives it: a watcher fires, the session gets one new turn
// carrying the event (claude -p --resume); the worker killed -9 during that
// turn never makes a second one, whether the turn goes on without it or is
// cut short with it (then --seen finds the batch in the session's own
// transcript).
func TestWakeResumesHeadlessClaude(t *testing.T) {
	needClaude(t)
	slowTier(t)
	t.Parallel()
	runs <- struct{}{} // one of the claude sessions at once
	defer func() { <-runs }()
	w := newWorld(t)
	os.WriteFile(filepath.Join(w.work, "notes.txt"), []byte("v1\n"), 0o600)
	const session = "6b1f3d1e-0c4a-4d8e-9a57-3c2b1d0e9f11"
	a := newAPI("plain", []turn{
		bash("hangdog watch create --kind file notes.txt --interval 1s", 30000),
		{Text: "Watching notes.txt."},
		{Text: "Noted the first change."},
		{Text: "Noted the second change, slowly.", Delay: 8 * time.Second},
		{Text: "Noted the third change, never.", Delay: 10 * time.Minute},
		{Text: "(a turn too many)"},
	}, os.Getenv("HANGDOG_E2E_DEBUG"))
	defer a.srv.Close()
	w.env = append(w.env, "ANTHROPIC_BASE_URL="+a.srv.URL, "ANTHROPIC_API_KEY=sk-ant-standin", "SESSION="+session)
	w.pathAdd(filepath.Dir(claude)) // the recipe runs claude by name

	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(timeoutS())*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, claude, "-p", "Watch notes.txt.", "--session-id", session, "--dangerously-skip-permissions")
	c.Dir, c.Env = w.work, w.env
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("claude -p: %v\n%s", err, out)
	}

	const run = `claude -p --resume "$SESSION" "$HANGDOG_WAKE_PROMPT" --dangerously-skip-permissions`
	const seen = `grep -qsF "$HANGDOG_WAKE_MARK" ~/.claude/projects/*/"$SESSION".jsonl`
	worker := func() string {
		return strings.TrimSpace(w.hangdog("wake", "--consumer", "agent", "--run", run, "--seen", seen))
	}
	worker()
	mark := regexp.MustCompile(`\[(hangdog-wake-agent-\d+-\d+)\][^\n]*\n[^\n]*watch_fired`)
	fire := func(text string) time.Time {
		t.Helper()
		t0 := time.Now()
		if err := os.WriteFile(filepath.Join(w.work, "notes.txt"), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return t0
	}
	told := func(t0 time.Time, what string) string {
		t.Helper()
		s, at, ok := waitText(a, mark, t0, time.Duration(float64(60*time.Second)*testbin.LoadScale()))
		if !ok {
			texts, _ := a.timedTexts()
			t.Fatalf("%s: no turn carried the watcher's fire; the model was sent %q\nevents:\n%s\nthe worker's log:\n%s", what, texts,
				w.hangdog("events", "--all"), w.workerLog())
		}
		m := mark.FindStringSubmatch(s)[1]
		logged := w.eventTime(strings.Split(m, "-")[3])
		t.Logf("%s: event logged %.2f s after the change, the turn's request %.2f s after the event (%.2f s after the change): %s",
			what, logged.Sub(t0).Seconds(), at.Sub(logged).Seconds(), at.Sub(t0).Seconds(), line(s))
		return m
	}

	// One fire, one turn.
	m1 := told(fire("v2\n"), "first fire")
	w.waitIdle(t)

	// The worker killed -9 during the turn; the turn goes on and ends.
	m2 := told(fire("v3\n"), "second fire")
	w.killWorker(t)
	worker()
	w.waitIdle(t)

	// Worker and turn killed together; the new worker asks the transcript.
	m3 := told(fire("v4\n"), "third fire")
	w.killWorker(t)
	var rec struct{ PID int }
	b, _ := os.ReadFile(filepath.Join(w.hdHome, "wake", "agent.json"))
	json.Unmarshal(b, &rec)
	if rec.PID <= 0 {
		t.Fatalf("no run in the wake record: %s", b)
	}
	syscall.Kill(-rec.PID, syscall.SIGKILL)
	worker()
	w.waitIdle(t)
	time.Sleep(5 * time.Second) // a second turn would come now

	for _, m := range []string{m1, m2, m3} {
		if n := count(a, regexp.MustCompile(regexp.QuoteMeta("["+m+"]"))); n != 1 {
			t.Errorf("batch %s reached the model in %d turns, want 1", m, n)
		}
	}
	if n := count(a, regexp.MustCompile(`\[hangdog-wake-agent-`)); n != 3 {
		texts, _ := a.timedTexts()
		t.Errorf("%d wake turns, want 3 (one per fire; the worker's own end is no news): %q", n, texts)
	}
	log := w.workerLog()
	for _, want := range []string{"finished after a restart; not handing them over again", "the agent's record has events"} {
		if !strings.Contains(log, want) {
			t.Errorf("the workers' log lacks %q:\n%s", want, log)
		}
	}
	if m1 == m2 || m2 == m3 {
		t.Errorf("batches share a mark: %s %s %s", m1, m2, m3)
	}
}

// pathAdd puts dir at the end of the world's PATH.
func (w *world) pathAdd(dir string) {
	for i, kv := range w.env {
		if strings.HasPrefix(kv, "PATH=") {
			w.env[i] = kv + ":" + dir
		}
	}
}

// workerLog is the output of the wake workers.
func (w *world) workerLog() string {
	var tasks []struct{ ID, Command string }
	json.Unmarshal([]byte(w.hangdog("bg", "ls", "--json", "--all")), &tasks)
	var b strings.Builder
	for _, task := range tasks {
		if strings.Contains(task.Command, " wake ") {
			b.WriteString(w.hangdog("bg", "logs", task.ID))
		}
	}
	return b.String()
}

// waitIdle waits until the wake worker has no batch in hand.
func (w *world) waitIdle(t *testing.T) {
	t.Helper()
	path := filepath.Join(w.hdHome, "wake", "agent.json")
	deadline := time.Now().Add(time.Duration(float64(60*time.Second) * testbin.LoadScale()))
	for time.Now().Before(deadline) {
		if _, err := os.Stat(path); os.IsNotExist(err) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	b, _ := os.ReadFile(path)
	t.Fatalf("the wake worker still has a batch in hand: %s", b)
}

// killWorker kills -9 the running wake worker (the command of its task).
func (w *world) killWorker(t *testing.T) {
	t.Helper()
	var tasks []struct {
		ID, Command, State string
		PID                int
	}
	json.Unmarshal([]byte(w.hangdog("bg", "ls", "--json", "--all")), &tasks)
	for _, task := range tasks {
		if task.State == "running" && strings.Contains(task.Command, " wake ") {
			if err := syscall.Kill(task.PID, syscall.SIGKILL); err != nil {
				t.Fatalf("kill -9 the wake worker %s: %v", task.ID, err)
			}
			for syscall.Kill(task.PID, 0) == nil {
				time.Sleep(20 * time.Millisecond)
			}
			return
		}
	}
	t.Fatalf("no wake worker running: %+v", tasks)
}
