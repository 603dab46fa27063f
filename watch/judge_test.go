package watch

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/jev"
	"github.com/hangdog/hangdog/settings"
)

// fakeModel is an OpenAI-compatible chat-completions server on 127.0.0.1:
// the one true boundary of a condition. answer says, per request (1-based),
// what to reply: a status and a {"holds", "why"} content.
type fakeModel struct {
	srv    *httptest.Server
	mu     sync.Mutex
	bodies [][]byte
}

type reply struct {
	status  int
	content string
	hang    bool // answer only when the client goes away
}

func holdsReply(holds bool, why string) reply {
	b, _ := json.Marshal(map[string]any{"holds": holds, "why": why})
	return reply{status: 200, content: string(b)}
}

func newFakeModel(t *testing.T, answer func(n int) reply) *fakeModel {
	t.Helper()
	m := &fakeModel{}
	m.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		m.mu.Lock()
		m.bodies = append(m.bodies, body)
		n := len(m.bodies)
		m.mu.Unlock()
		if r.URL.Path != "/v1/chat/completions" {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		a := answer(n)
		if a.hang {
			<-r.Context().Done()
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(a.status)
		if a.status != 200 {
			io.WriteString(w, `{"error":{"message":"the model is overloaded"}}`)
			return
		}
		b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{
			"finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": a.content}}}})
		w.Write(b)
	}))
	t.Cleanup(m.srv.Close)
	return m
}

func (m *fakeModel) requests() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.bodies)
}

func (m *fakeModel) body(i int) []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.bodies[i]
}

// judge is the Judge the runner gets in production, built from the
// default decision-model settings with the environment pointing at the
// fake server (inherit mode, as a user's HANGDOG_OPENAI_BASE_URL does).
// Like the supervisor's, its client retries a 5xx twice within one ask, so
// a failed ask of a failing server is askRequests requests.
func (m *fakeModel) judge(t *testing.T) Judge {
	t.Helper()
	env := map[string]string{jev.EnvOpenAIBaseURL: m.srv.URL + "/v1", jev.EnvOpenAIModel: "watch-judge"}
	dm := settings.Default().DecisionModel
	dm.TimeoutSec = 5
	j, line, asks := JudgeFor(dm, func(k string) string { return env[k] })
	if !asks || !strings.Contains(line, "conditions are asked of openai at "+m.srv.URL) {
		t.Fatalf("JudgeFor: %s", line)
	}
	return j
}

// askRequests is what one failed ask of a server answering 5xx costs.
const askRequests = 1 + jev.DefaultRetries

// newFileWatcher creates a watcher of a file holding content, with q's
// check and condition.
func newFileWatcher(t *testing.T, s *Store, q Request, content string) (*Created, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "watched")
	writeFile(t, path, content)
	q.Kind, q.Target = KindFile, path
	return create(t, s, &q, "sess-a"), path
}

func TestConditionHoldsFires(t *testing.T) {
	s := newStore(t)
	m := newFakeModel(t, func(int) reply { return holdsReply(true, "the linker failed, not a test") })
	c, path := newFileWatcher(t, s, Request{Condition: "the failure is not a flaky test"}, "build: running")
	r := &Runner{Store: s, ID: c.Spec.ID, Judge: m.judge(t)}
	writeFile(t, path, "build: failed in ld")
	tick(t, r)
	fired := events(t, s, c.Spec.ID, bgtasks.EventWatchFired)
	if len(fired) != 1 || !strings.Contains(fired[0].Reason, "changed; condition holds: the failure is not a flaky test") {
		t.Fatalf("fires %+v: want one saying the condition holds", fired)
	}
	if p := fired[0].Payload; !strings.Contains(p, "untrusted") || !strings.Contains(p, "the linker failed, not a test") || !strings.Contains(p, "build: failed in ld") {
		t.Errorf("payload %q: want the content and the model's reason, marked untrusted", p)
	}
	if strings.Contains(fired[0].Reason, "linker") {
		t.Errorf("the model's words are in the event's reason: %q", fired[0].Reason)
	}
	if st := state(t, s, c.Spec.ID); st.Judging != nil || st.FiresUsed != 1 {
		t.Errorf("state: judging %+v, fires %d; want settled, 1 fire", st.Judging, st.FiresUsed)
	}
	if m.requests() != 1 {
		t.Errorf("%d requests, want 1", m.requests())
	}
}

func TestConditionDoesNotHoldConsumesTheMatch(t *testing.T) {
	s := newStore(t)
	m := newFakeModel(t, func(int) reply { return holdsReply(false, "only a flaky test") })
	c, path := newFileWatcher(t, s, Request{Condition: "the failure is not a flaky test"}, "build: running")
	r := &Runner{Store: s, ID: c.Spec.ID, Judge: m.judge(t)}
	before := state(t, s, c.Spec.ID).Hash
	writeFile(t, path, "build: failed in test_flaky")
	tick(t, r)
	if n := len(events(t, s, c.Spec.ID, "")); n != 0 {
		t.Fatalf("%d events although the condition does not hold", n)
	}
	st := state(t, s, c.Spec.ID)
	if st.Hash == before || st.Judging != nil || st.FiresUsed != 0 {
		t.Fatalf("state: hash advanced %v, judging %+v, fires %d; want advanced, consumed, none", st.Hash != before, st.Judging, st.FiresUsed)
	}
	tick(t, r) // unchanged: the consumed match is not asked about again
	tick(t, r)
	if m.requests() != 1 {
		t.Fatalf("%d requests after two unchanged checks, want still 1", m.requests())
	}
	writeFile(t, path, "build: failed again")
	tick(t, r)
	if m.requests() != 2 {
		t.Errorf("%d requests after a new change, want 2", m.requests())
	}
}

// The model is asked only after the deterministic check fired and the
// cooldown allowed a fire: a change the check does not fire on, an
// unchanged source and a change inside the cooldown make no request.
func TestConditionAskedOnlyAfterCheckFiresAndCooldown(t *testing.T) {
	s := newStore(t)
	m := newFakeModel(t, func(int) reply { return holdsReply(true, "yes") })
	c, path := newFileWatcher(t, s, Request{Check: CheckStatus, Path: "status", Value: "failed", Condition: "the failure is real",
		CooldownSeconds: ptr(3600.0)}, `{"status":"running"}`)
	r := &Runner{Store: s, ID: c.Spec.ID, Judge: m.judge(t)}
	writeFile(t, path, `{"status":"queued"}`) // changed; the status check does not fire
	tick(t, r)
	tick(t, r) // unchanged
	if m.requests() != 0 {
		t.Fatalf("%d requests before the check fired", m.requests())
	}
	writeFile(t, path, `{"status":"failed"}`)
	tick(t, r)
	if m.requests() != 1 || len(events(t, s, c.Spec.ID, bgtasks.EventWatchFired)) != 1 {
		t.Fatalf("%d requests, %d fires after the check fired; want 1 and 1", m.requests(), len(events(t, s, c.Spec.ID, bgtasks.EventWatchFired)))
	}
	writeFile(t, path, `{"status":"running"}`)
	tick(t, r)
	writeFile(t, path, `{"status":"failed"}`) // fires again, inside the cooldown
	tick(t, r)
	if m.requests() != 1 {
		t.Errorf("%d requests: the model was asked inside the cooldown", m.requests())
	}
}

// A model that fails (5xx) neither fires nor loses the match: the failure
// is counted in the state, the next check asks again (without looking at
// the source), and the third failure in a row fires once, marked not
// checked. Each tick is a fresh Runner, as after a restart.
func TestConditionJudgeFailuresFireOnTheNth(t *testing.T) {
	s := newStore(t)
	m := newFakeModel(t, func(int) reply { return reply{status: 503} })
	c, path := newFileWatcher(t, s, Request{Check: CheckBelow, Value: "90", Condition: "it is a real sale, not a pricing error"}, "price 95.10")
	judge := m.judge(t)
	writeFile(t, path, "price 85.00")
	for i := 1; i <= 2; i++ {
		tick(t, &Runner{Store: s, ID: c.Spec.ID, Judge: judge})
		if n := len(events(t, s, c.Spec.ID, "")); n != 0 {
			t.Fatalf("after %d failures: %d events, want none yet", i, n)
		}
		st := state(t, s, c.Spec.ID)
		if st.Judging == nil || st.Judging.Failures != i || !strings.Contains(st.Judging.LastError, "503") {
			t.Fatalf("after %d failures the state keeps %+v; want the match with %d failures and the 503", i, st.Judging, i)
		}
		if st.Checks != 2 { // the baseline and the check that matched
			t.Errorf("checks = %d: a retry looked at the source", st.Checks)
		}
	}
	tick(t, &Runner{Store: s, ID: c.Spec.ID, Judge: judge})
	fired := events(t, s, c.Spec.ID, bgtasks.EventWatchFired)
	if len(fired) != 1 || !strings.Contains(fired[0].Reason, "below 90: now 85 (was 95.1)") ||
		!strings.Contains(fired[0].Reason, "condition not checked (the decision model failed 3 times") || !strings.Contains(fired[0].Reason, "503") {
		t.Fatalf("fires %+v: want one, marked not checked after 3 failures", fired)
	}
	if st := state(t, s, c.Spec.ID); st.Judging != nil || st.FiresUsed != 1 {
		t.Errorf("state after the fire: judging %+v, fires %d", st.Judging, st.FiresUsed)
	}
	tick(t, &Runner{Store: s, ID: c.Spec.ID, Judge: judge}) // still below: edge-triggered, quiet
	if m.requests() != 3*askRequests || len(events(t, s, c.Spec.ID, bgtasks.EventWatchFired)) != 1 {
		t.Errorf("%d requests, %d fires after a quiet check; want %d and 1", m.requests(), 3*askRequests, len(events(t, s, c.Spec.ID, bgtasks.EventWatchFired)))
	}
}

// A model that recovers answers about the match that waited: a new item
// seen once, judged at the second ask, fires once.
func TestConditionMatchWaitsForARecoveredModel(t *testing.T) {
	s := newStore(t)
	m := newFakeModel(t, func(n int) reply {
		if n == 1 {
			return reply{status: 200, content: "I think so"} // malformed: a failure
		}
		return holdsReply(true, "a security release")
	})
	c, path := newFileWatcher(t, s, Request{Check: CheckNew, Path: "releases", Condition: "a release fixes a security issue"},
		`{"releases":[{"id":"1.0","title":"first"}]}`)
	r := &Runner{Store: s, ID: c.Spec.ID, Judge: m.judge(t)}
	writeFile(t, path, `{"releases":[{"id":"1.0","title":"first"},{"id":"1.1","title":"CVE-2026-1234 fixed"}]}`)
	tick(t, r)
	if st := state(t, s, c.Spec.ID); st.Judging == nil || !strings.Contains(st.Judging.LastError, "not the JSON object") {
		t.Fatalf("after a malformed answer: judging %+v", st.Judging)
	}
	tick(t, r)
	fired := events(t, s, c.Spec.ID, bgtasks.EventWatchFired)
	if len(fired) != 1 || !strings.Contains(fired[0].Reason, "1 new item(s); condition holds") || !strings.Contains(fired[0].Payload, "CVE-2026-1234") {
		t.Fatalf("fires %+v: want the waiting item, judged", fired)
	}
	if !strings.Contains(string(m.body(1)), "CVE-2026-1234") {
		t.Errorf("the second ask was not about the waiting item: %.300s", m.body(1))
	}
	tick(t, r)
	if m.requests() != 2 || len(events(t, s, c.Spec.ID, bgtasks.EventWatchFired)) != 1 {
		t.Errorf("%d requests, %d fires; want the item judged and fired once", m.requests(), len(events(t, s, c.Spec.ID, bgtasks.EventWatchFired)))
	}
}

// What the model receives: no tools, the untrusted marking, at most 8,000
// characters of the source's text, the token budget, and no secret from
// the watched file — nor does the state on disk keep one while it waits.
func TestConditionRequestIsSafe(t *testing.T) {
	s := newStore(t)
	m := newFakeModel(t, func(int) reply { return reply{status: 500} })
	c, path := newFileWatcher(t, s, Request{Condition: "the deploy finished"}, "deploy: starting")
	const awsKey, password = "AKIAIOSFODNN7EXAMPLE", "hunter2-Correct-Horse"
	content := "deploy: done\nexport AWS_ACCESS_KEY_ID=" + awsKey + "\ndb password=" + password + "\n" +
		strings.Repeat("a log line that pads the file\n", 600) + "deploy: the last line"
	writeFile(t, path, content)
	tick(t, &Runner{Store: s, ID: c.Spec.ID, Judge: m.judge(t)})
	if m.requests() != askRequests {
		t.Fatalf("%d requests, want %d (one ask)", m.requests(), askRequests)
	}
	body := m.body(0)
	var req map[string]any
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("request: %v", err)
	}
	if _, ok := req["tools"]; ok {
		t.Errorf("the request offers tools")
	}
	if mt, _ := req["max_tokens"].(float64); mt != jev.ConditionMaxTokens {
		t.Errorf("max_tokens = %v, want %d", req["max_tokens"], jev.ConditionMaxTokens)
	}
	var msgs []struct{ Role, Content string }
	b, _ := json.Marshal(req["messages"])
	json.Unmarshal(b, &msgs)
	if len(msgs) != 2 || !strings.Contains(msgs[0].Content, "untrusted") {
		t.Fatalf("messages %+v: want a system prompt marking the text untrusted", msgs)
	}
	user := msgs[1].Content
	_, inner, ok := strings.Cut(user, "<untrusted-watched-text>\n")
	inner, _, ok2 := strings.Cut(inner, "\n</untrusted-watched-text>")
	if !ok || !ok2 || !strings.Contains(user, "untrusted text from a watched source") {
		t.Fatalf("the text is not wrapped as untrusted:\n%.300s", user)
	}
	if len([]rune(inner)) > 8000 || !strings.Contains(inner, "characters left out") || !strings.HasSuffix(inner, "deploy: the last line") || !strings.Contains(inner, "deploy: done") {
		t.Errorf("sent %d characters of source text: want at most 8000, cut in the middle with a note", len([]rune(inner)))
	}
	for _, secret := range []string{awsKey, password} {
		if strings.Contains(string(body), secret) {
			t.Errorf("the request carries %q", secret)
		}
	}
	raw, err := os.ReadFile(filepath.Join(s.watcherDir(c.Spec.ID), "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	var onDisk struct {
		Judging json.RawMessage `json:"judging"`
	}
	if err := json.Unmarshal(raw, &onDisk); err != nil || len(onDisk.Judging) == 0 {
		t.Fatalf("state.json does not keep the waiting match (%v):\n%s", err, raw)
	}
	if j := string(onDisk.Judging); strings.Contains(j, awsKey) || strings.Contains(j, password) || len(j) > 3*jev.MaxConditionTextChars {
		t.Errorf("the waiting match on disk keeps a secret or more than the capped text (%d bytes)", len(j))
	}
}

// No decision model configured: the fire goes out at once, saying so and
// how to configure one; nothing waits.
func TestConditionWithoutAModelFiresUnchecked(t *testing.T) {
	for _, tt := range []struct {
		name  string
		judge func() Judge
	}{
		{"nil Judge", func() Judge { return nil }},
		{"settings with no remote model", func() Judge {
			j, line, asks := JudgeFor(settings.Default().DecisionModel, func(string) string { return "" })
			if asks || !strings.Contains(line, "no decision model is configured") {
				t.Errorf("JudgeFor log line %q", line)
			}
			return j
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t)
			c, path := newFileWatcher(t, s, Request{Condition: "it matters"}, "a")
			writeFile(t, path, "b")
			tick(t, &Runner{Store: s, ID: c.Spec.ID, Judge: tt.judge()})
			fired := events(t, s, c.Spec.ID, bgtasks.EventWatchFired)
			if len(fired) != 1 || !strings.Contains(fired[0].Reason, "condition not checked: no decision model is configured (set HANGDOG_OPENAI_BASE_URL") ||
				!strings.Contains(fired[0].Reason, "condition: it matters") {
				t.Fatalf("fires %+v: want one marked not checked, saying how to configure a model", fired)
			}
			if st := state(t, s, c.Spec.ID); st.Judging != nil {
				t.Errorf("a match waits for a model that is not configured: %+v", st.Judging)
			}
		})
	}
	// A refused configuration abstains at once too, saying what is wrong.
	dm := settings.DecisionModel{Source: "custom", Backend: "openai", URL: "ftp://nowhere", Model: "m", TimeoutSec: 5}
	_, line, asks := JudgeFor(dm, func(string) string { return "" })
	if asks || !strings.Contains(line, "cannot be used") || !strings.Contains(line, "not an http(s) URL") {
		t.Errorf("JudgeFor of a bad URL: %s", line)
	}
}

// A pause while a match waits keeps it; after resume it is asked about.
// A command's terminal outcome pauses the watcher once judged.
func TestConditionPauseKeepsTheMatchAndTerminalPausesAfter(t *testing.T) {
	s := newStore(t)
	up := false
	var mu sync.Mutex
	m := newFakeModel(t, func(int) reply {
		mu.Lock()
		defer mu.Unlock()
		if !up {
			return reply{status: 502}
		}
		return holdsReply(true, "it passed")
	})
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	writeFile(t, out, `{"outcome":"idle"}`)
	c := create(t, s, &Request{Kind: KindCommand, Target: "cat " + out, Condition: "the run passed"}, "sess-a")
	judge := m.judge(t)
	writeFile(t, out, `{"outcome":"terminal","payload":"passed"}`)
	tick(t, &Runner{Store: s, ID: c.Spec.ID, Judge: judge})
	if st := state(t, s, c.Spec.ID); st.Judging == nil || !st.Judging.Terminal || st.Paused {
		t.Fatalf("after a failed ask on a terminal outcome: judging %+v, paused %v", st.Judging, st.Paused)
	}
	if err := s.Pause(c.Spec.ID, "sess-a", ""); err != nil {
		t.Fatal(err)
	}
	if stop := tick(t, &Runner{Store: s, ID: c.Spec.ID, Judge: judge}); !stop || m.requests() != askRequests {
		t.Fatalf("a paused watcher's tick: stop %v, %d requests", stop, m.requests())
	}
	if _, err := s.Resume(c.Spec.ID, "sess-a"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	up = true
	mu.Unlock()
	stop := tick(t, &Runner{Store: s, ID: c.Spec.ID, Judge: judge})
	fired := events(t, s, c.Spec.ID, bgtasks.EventWatchFired)
	if len(fired) != 1 || !strings.Contains(fired[0].Reason, "command reported terminal; condition holds") {
		t.Fatalf("fires %+v after resume", fired)
	}
	if st := state(t, s, c.Spec.ID); !stop || !st.Paused || !strings.Contains(st.Reason, "terminal outcome") {
		t.Errorf("after the judged terminal outcome: stop %v, paused %v (%s)", stop, st.Paused, st.Reason)
	}
}

// A runner killed (kill -9) while it asks the model loses nothing: the
// match is on disk before the ask, and the next runner asks about it and
// fires once.
func TestConditionSurvivesAKillDuringTheAsk(t *testing.T) {
	s := newStore(t)
	asked := make(chan struct{}, 8)
	var mu sync.Mutex
	hang := true
	m := newFakeModel(t, func(int) reply {
		mu.Lock()
		defer mu.Unlock()
		asked <- struct{}{}
		if hang {
			return reply{hang: true}
		}
		return holdsReply(true, "it is real")
	})
	c, path := newFileWatcher(t, s, Request{Condition: "the change is real", IntervalSeconds: 1}, "v0")
	logs := t.TempDir()
	start := func(n int) (*exec.Cmd, string) {
		log := filepath.Join(logs, fmt.Sprintf("runner%d.log", n))
		f, err := os.Create(log)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		cmd := helper(t, s.reg.Home(), "run", c.Spec.ID)
		cmd.Env = append(cmd.Env, helperModelEnv+"="+m.srv.URL+"/v1")
		cmd.Stdout, cmd.Stderr = f, f
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		return cmd, log
	}
	logHas := func(log, what string) func() bool {
		return func() bool { b, _ := os.ReadFile(log); return strings.Contains(string(b), what) }
	}
	first, log := start(1)
	waitFor(t, "the runner to start watching", 30*time.Second, logHas(log, "watching"))
	writeFile(t, path, "v1")
	select {
	case <-asked:
	case <-time.After(30 * time.Second):
		t.Fatal("the model was never asked")
	}
	if st := state(t, s, c.Spec.ID); st.Judging == nil {
		t.Fatalf("the match is not on disk while the model is asked: %+v", st)
	}
	if err := first.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()
	mu.Lock()
	hang = false
	mu.Unlock()
	_, log2 := start(2)
	waitFor(t, "the waiting match to fire", 30*time.Second, logHas(log2, "fired (1 of"))
	// Anything more would show within a few intervals of one second.
	time.Sleep(3 * time.Second)
	fired := events(t, s, c.Spec.ID, bgtasks.EventWatchFired)
	if len(fired) != 1 || !strings.Contains(fired[0].Reason, "condition holds") {
		t.Fatalf("fires %+v: want the waiting match fired once, judged", fired)
	}
	if st := state(t, s, c.Spec.ID); st.FiresUsed != 1 || st.Judging != nil {
		t.Errorf("state: fires %d, judging %+v", st.FiresUsed, st.Judging)
	}
}

// A match that waited for a failing model when the watcher expires was
// news before the expiry: it goes out unchecked, then the expiry.
func TestConditionMatchWaitingAtExpiryFiresUnchecked(t *testing.T) {
	s := newStore(t)
	m := newFakeModel(t, func(int) reply { return reply{status: 200, content: "not JSON"} })
	expires := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	c, path := newFileWatcher(t, s, Request{Condition: "it matters", ExpiresAt: expires}, "a")
	writeFile(t, path, "b")
	tick(t, &Runner{Store: s, ID: c.Spec.ID, Judge: m.judge(t)})
	if st := state(t, s, c.Spec.ID); st.Judging == nil {
		t.Fatalf("no match waits after a bad answer: %+v", st)
	}
	later := &Runner{Store: s, ID: c.Spec.ID, Judge: m.judge(t), Now: func() time.Time { return time.Now().Add(2 * time.Hour) }}
	if stop := tick(t, later); !stop {
		t.Fatal("the expired watcher did not stop")
	}
	fired := events(t, s, c.Spec.ID, bgtasks.EventWatchFired)
	expired := events(t, s, c.Spec.ID, bgtasks.EventWatchExpired)
	if len(fired) != 1 || !strings.Contains(fired[0].Reason, "condition not checked (the watcher expired before the decision model answered)") {
		t.Fatalf("fires %+v: want the waiting match, unchecked", fired)
	}
	if len(expired) != 1 || !strings.Contains(expired[0].Reason, "after 1 fires") || m.requests() != 1 {
		t.Errorf("expiry events %+v, %d requests: want one expiry after the fire, no more asks", expired, m.requests())
	}
}
