//go:build linux

package codex

import (
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

// wakeMark matches the mark of a batch the wake worker hands over.
var wakeMark = regexp.MustCompile(`\[(hangdog-wake-agent-\d+-\d+)\]`)

// The wake recipe for Codex, as `hangdog wake --help` gives it: a watcher
// (made for the session) fires, the session gets one new turn carrying the event (codex exec
// resume); the worker killed -9 during that turn never makes a second one,
// whether the turn goes on without it or is cut short with it (then --seen
// finds the batch in the session's own rollout files).
func TestWakeResumesCodex(t *testing.T) {
	if codex == "" {
		t.Skip(skipWhy)
	}
	api := newStandin([]string{"echo ready"})
	defer api.srv.Close()
	// The second batch's turn is slow, the third's never ends.
	api.delay = func(body string) time.Duration {
		switch len(distinct(wakeMark.FindAllStringSubmatch(body, -1))) {
		case 2:
			return 8 * time.Second
		case 3:
			return 10 * time.Minute
		}
		return 0
	}
	h := newHome(t, api)
	os.WriteFile(filepath.Join(h.work, "notes.txt"), []byte("v1\n"), 0o600)
	out, _ := h.exec(t, "--skip-git-repo-check", "--json", "--dangerously-bypass-approvals-and-sandbox", "Watch notes.txt.")
	var thread string
	for _, l := range strings.Split(string(out), "\n") {
		var ev map[string]any
		if json.Unmarshal([]byte(l), &ev) == nil && ev["type"] == "thread.started" {
			thread, _ = ev["thread_id"].(string)
		}
	}
	if thread == "" {
		t.Fatalf("codex exec --json named no thread:\n%s", out)
	}
	h.env = append(h.env, "SESSION="+thread)
	// The watcher is made here, not by codex's call: every hangdog-full
	// command run in a terminal that does not answer (the PTY of hangdog's
	// own bash tool) waits 5 s for bubbletea's background-colour query.
	h.hangdog(t, "watch", "create", "--kind", "file", "notes.txt", "--interval", "1s")

	const run = `codex exec resume --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox "$SESSION" "$HANGDOG_WAKE_PROMPT" </dev/null`
	const seen = `grep -rqsF "$HANGDOG_WAKE_MARK" "${CODEX_HOME:-$HOME/.codex}/sessions"`
	worker := func() { h.hangdog(t, "wake", "--consumer", "agent", "--run", run, "--seen", seen) }
	worker()
	fire := func(text string) time.Time {
		t.Helper()
		t0 := time.Now()
		if err := os.WriteFile(filepath.Join(h.work, "notes.txt"), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return t0
	}
	// told waits for a request whose newest batch is new, and returns its mark.
	told := func(t0 time.Time, what string, n int) string {
		t.Helper()
		deadline := time.Now().Add(time.Duration(float64(60*time.Second) * testbin.LoadScale()))
		for time.Now().Before(deadline) {
			for _, r := range api.requests() {
				marks := distinct(wakeMark.FindAllStringSubmatch(r.Body, -1))
				if len(marks) == n && r.At.After(t0) && strings.Contains(r.Body, "watch_fired") {
					logged := h.eventTime(t, strings.Split(marks[n-1], "-")[3])
					t.Logf("%s: event logged %.2f s after the change, the turn's request %.2f s after the event (%.2f s after the change)",
						what, logged.Sub(t0).Seconds(), r.At.Sub(logged).Seconds(), r.At.Sub(t0).Seconds())
					return marks[n-1]
				}
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Fatalf("%s: no turn carried the watcher's fire; the workers' log:\n%s", what, h.workerLog(t))
		return ""
	}

	m1 := told(fire("v2\n"), "first fire", 1)
	h.waitIdle(t)

	m2 := told(fire("v3\n"), "second fire", 2)
	h.killWorker(t)
	worker()
	h.waitIdle(t)

	m3 := told(fire("v4\n"), "third fire", 3)
	h.killWorker(t)
	var rec struct{ PID int }
	b, _ := os.ReadFile(filepath.Join(h.hd, "wake", "agent.json"))
	json.Unmarshal(b, &rec)
	if rec.PID <= 0 {
		t.Fatalf("no run in the wake record: %s", b)
	}
	syscall.Kill(-rec.PID, syscall.SIGKILL)
	worker()
	h.waitIdle(t)
	time.Sleep(5 * time.Second) // a second turn would come now

	// Each batch is in the conversation once: the last request holds every
	// user message so far.
	reqs := api.requests()
	last := reqs[len(reqs)-1].Body
	for _, m := range []string{m1, m2, m3} {
		if n := strings.Count(last, "["+m+"]"); n != 1 {
			t.Errorf("batch %s is in the conversation %d times, want once", m, n)
		}
	}
	if marks := distinct(wakeMark.FindAllStringSubmatch(last, -1)); len(marks) != 3 {
		t.Errorf("%d batches reached the model, want 3 (one per fire; the worker's own end is no news): %v", len(marks), marks)
	}
	log := h.workerLog(t)
	for _, want := range []string{"finished after a restart; not handing them over again", "the agent's record has events"} {
		if !strings.Contains(log, want) {
			t.Errorf("the workers' log lacks %q:\n%s", want, log)
		}
	}
}

// eventTime is when event #seq was logged.
func (h *home) eventTime(t *testing.T, seq string) time.Time {
	t.Helper()
	for _, l := range strings.Split(h.hangdog(t, "events", "--all", "--json"), "\n") {
		var e struct {
			Seq  json.Number
			Time time.Time
		}
		if json.Unmarshal([]byte(l), &e) == nil && e.Seq.String() == seq {
			return e.Time
		}
	}
	t.Fatalf("no event #%s in the log", seq)
	return time.Time{}
}

// distinct is the first submatches, each once, in order.
func distinct(ms [][]string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range ms {
		if !seen[m[1]] {
			seen[m[1]] = true
			out = append(out, m[1])
		}
	}
	return out
}

func (s *standin) requests() []request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]request(nil), s.bodies...)
}

func (h *home) hangdog(t *testing.T, args ...string) string {
	t.Helper()
	c := exec.Command(filepath.Join(binDir, "hangdog"), args...)
	c.Dir, c.Env = h.work, h.env
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("hangdog %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

type task struct {
	ID, Command, State string
	PID                int
}

func (h *home) workers(t *testing.T) []task {
	var tasks, out []task
	json.Unmarshal([]byte(h.hangdog(t, "bg", "ls", "--json", "--all")), &tasks)
	for _, x := range tasks {
		if strings.Contains(x.Command, " wake ") {
			out = append(out, x)
		}
	}
	return out
}

func (h *home) workerLog(t *testing.T) string {
	var b strings.Builder
	for _, x := range h.workers(t) {
		b.WriteString(h.hangdog(t, "bg", "logs", x.ID))
	}
	return b.String()
}

// waitIdle waits until the wake worker has no batch in hand.
func (h *home) waitIdle(t *testing.T) {
	t.Helper()
	path := filepath.Join(h.hd, "wake", "agent.json")
	deadline := time.Now().Add(time.Duration(float64(60*time.Second) * testbin.LoadScale()))
	for time.Now().Before(deadline) {
		if _, err := os.Stat(path); os.IsNotExist(err) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	b, _ := os.ReadFile(path)
	t.Fatalf("the wake worker still has a batch in hand: %s\n%s", b, h.workerLog(t))
}

// killWorker kills -9 the running wake worker (the command of its task).
func (h *home) killWorker(t *testing.T) {
	t.Helper()
	for _, x := range h.workers(t) {
		if x.State == "running" {
			if err := syscall.Kill(x.PID, syscall.SIGKILL); err != nil {
				t.Fatalf("kill -9 the wake worker %s: %v", x.ID, err)
			}
			for syscall.Kill(x.PID, 0) == nil {
				time.Sleep(20 * time.Millisecond)
			}
			return
		}
	}
	t.Fatalf("no wake worker running")
}
