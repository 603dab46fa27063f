//go:build linux

package claudecode

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hangdog/hangdog/internal/testbin"
)

// pluginName is the plugin as .claude-plugin/marketplace.json names it,
// with its marketplace: what `claude plugin install` takes.
const pluginName = "hangdog@hangdog"

// wakeLimit is how soon after an event an idle session must start a turn.
const wakeLimit = 30 * time.Second

// world is a throw-away HOME, hangdog home and work dir for the real CLI.
type world struct {
	t                        *testing.T
	root, home, work, hdHome string
	env                      []string // for hangdog and claude alike
	marker                   string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	root, err := os.MkdirTemp("", "cc") // short: hangdog's sockets live under it
	if err != nil {
		t.Fatal(err)
	}
	w := &world{t: t, root: root, home: filepath.Join(root, "home"), work: filepath.Join(root, "work"), hdHome: filepath.Join(root, "h")}
	for _, d := range []string{w.home, w.work, filepath.Join(root, "cfg"), filepath.Join(root, "st")} {
		os.MkdirAll(d, 0o700)
	}
	w.marker = fmt.Sprintf("HANGDOG_E2E_RUN=%d-%d", os.Getpid(), runSeq.Add(1))
	w.env = []string{"HOME=" + w.home, "HANGDOG_HOME=" + w.hdHome, "XDG_CONFIG_HOME=" + filepath.Join(root, "cfg"),
		"XDG_STATE_HOME=" + filepath.Join(root, "st"), "PATH=" + binDir + ":" + os.Getenv("PATH"), w.marker,
		"TERM=xterm-256color", "LANG=C.UTF-8", "USER=" + os.Getenv("USER"), "TMPDIR=" + os.TempDir(),
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1",
		"DISABLE_ERROR_REPORTING=1", "DISABLE_BUG_COMMAND=1", "CLAUDE_CODE_DISABLE_TERMINAL_TITLE=1", "IS_SANDBOX=1"}
	t.Cleanup(func() {
		testbin.StopTasks(w.hdHome)
		testbin.KillMarked(w.marker)
		os.RemoveAll(root)
	})
	return w
}

// claude runs a claude subcommand (plugin ...) to completion.
func (w *world) claude(args ...string) string {
	w.t.Helper()
	c := exec.Command(claude, args...)
	c.Dir, c.Env = w.work, w.env
	out, err := c.CombinedOutput()
	if err != nil {
		w.t.Fatalf("claude %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// install installs the checkout's plugin as its README says.
func (w *world) install() {
	w.t.Helper()
	w.claude("plugin", "marketplace", "add", repoRoot)
	w.claude("plugin", "install", pluginName)
}

// interactive prepares what an interactive claude needs to start with no
// prompt at all: onboarding done, the work dir trusted, the API key
// approved, the bypass-permissions warning accepted.
func (w *world) interactive(key string) {
	w.t.Helper()
	path := filepath.Join(w.home, ".claude.json")
	cfg := map[string]any{}
	if b, err := os.ReadFile(path); err == nil {
		json.Unmarshal(b, &cfg)
	}
	cfg["hasCompletedOnboarding"] = true
	cfg["lastOnboardingVersion"] = ClaudeVersion
	cfg["theme"] = "dark"
	cfg["customApiKeyResponses"] = map[string]any{"approved": []string{key[len(key)-20:]}, "rejected": []string{}}
	cfg["projects"] = map[string]any{w.work: map[string]any{"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true, "allowedTools": []string{}}}
	writeJSON(w.t, path, cfg)
	settings := filepath.Join(w.home, ".claude", "settings.json")
	s := map[string]any{}
	if b, err := os.ReadFile(settings); err == nil {
		json.Unmarshal(b, &s)
	}
	s["skipDangerousModePermissionPrompt"] = true
	os.MkdirAll(filepath.Dir(settings), 0o700)
	writeJSON(w.t, settings, s)
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, _ := json.MarshalIndent(v, "", "  ")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// tmux runs claude interactively in a tmux session of its own server.
type tmux struct {
	w    *world
	sock string
}

func (w *world) tmux() *tmux {
	if _, err := exec.LookPath("tmux"); err != nil {
		w.t.Skip("tmux not installed: the interactive Claude Code tests drive claude in tmux")
	}
	x := &tmux{w: w, sock: filepath.Join(w.root, "tmux.sock")}
	w.t.Cleanup(func() { exec.Command("tmux", "-S", x.sock, "kill-server").Run() })
	return x
}

// start runs claude with args in a new tmux session; env adds to the world's.
func (x *tmux) start(env []string, args ...string) {
	x.w.t.Helper()
	var script strings.Builder
	script.WriteString("cd " + shq(x.w.work) + " && exec env")
	for _, kv := range append(append([]string(nil), x.w.env...), env...) {
		script.WriteString(" " + shq(kv))
	}
	script.WriteString(" " + shq(claude))
	for _, a := range args {
		script.WriteString(" " + shq(a))
	}
	path := filepath.Join(x.w.root, "claude.sh")
	os.WriteFile(path, []byte(script.String()+"\n"), 0o700)
	c := exec.Command("tmux", "-S", x.sock, "new-session", "-d", "-s", "cc", "-x", "200", "-y", "50", "bash "+shq(path))
	if out, err := c.CombinedOutput(); err != nil {
		x.w.t.Fatalf("tmux: %v\n%s", err, out)
	}
}

// screen is what the terminal shows.
func (x *tmux) screen() string {
	out, _ := exec.Command("tmux", "-S", x.sock, "capture-pane", "-p", "-t", "cc").Output()
	return string(out)
}

// stop ends claude the way a person closes its terminal.
func (x *tmux) stop() {
	exec.Command("tmux", "-S", x.sock, "kill-session", "-t", "cc").Run()
}

func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// hangdog runs hangdog in the world.
func (w *world) hangdog(args ...string) string {
	w.t.Helper()
	c := exec.Command(filepath.Join(binDir, "hangdog"), args...)
	c.Dir, c.Env = w.work, w.env
	out, err := c.CombinedOutput()
	if err != nil {
		w.t.Fatalf("hangdog %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// waitText waits for a text block matching re that came after since.
func waitText(a *api, re *regexp.Regexp, since time.Time, limit time.Duration) (string, time.Time, bool) {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		texts, at := a.timedTexts()
		for i, s := range texts {
			if !at[i].Before(since) && re.MatchString(s) {
				return s, at[i], true
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return "", time.Time{}, false
}

// count is how many text blocks the model was sent that match re.
func count(a *api, re *regexp.Regexp) int {
	texts, _ := a.timedTexts()
	n := 0
	for _, s := range texts {
		n += len(re.FindAllString(s, -1))
	}
	return n
}

// The real Claude Code, interactive in tmux, with the plugin installed:
// the session makes a file watcher and starts a background build, ends its
// turn and idles; the build ends, then the file changes, three times; each
// time a new request reaches the model carrying the event, with nobody
// typing, once. Closed and resumed (its watcher kept by tasks.onSessionEnd:
// keep), the session is told of a fire that came while it was closed, once,
// and nothing already told.
func TestInteractiveSessionIsWokenByItsEvents(t *testing.T) {
	needClaude(t)
	slowTier(t)
	t.Parallel()
	runs <- struct{}{} // one of the claude sessions at once
	defer func() { <-runs }()
	w := newWorld(t)
	x := w.tmux()
	os.WriteFile(filepath.Join(w.work, "notes.txt"), []byte("v1\n"), 0o600)
	w.install()
	const key = "sk-ant-standin-interactive-0000000000"
	w.interactive(key)
	a := newAPI("plugin", []turn{
		bash("hangdog watch create --kind file notes.txt --interval 1s", 30000),
		bash("hangdog bg run 'sleep 4; echo built-it'", 30000),
		{Text: "Watching notes.txt and building; idle until something happens."},
		{Text: "Noted the build's end."},
		{Text: "Noted the first change."},
		{Text: "Noted the second change."},
		{Text: "Noted the third change."},
		{Text: "Noted the change from while I was closed."},
		{Text: "(nothing more)"},
	}, os.Getenv("HANGDOG_E2E_DEBUG"))
	defer a.srv.Close()
	// The session's watcher outlives its session (by default a session's
	// tasks end with it), so it can fire while Claude Code is closed.
	env := []string{"ANTHROPIC_BASE_URL=" + a.srv.URL, "ANTHROPIC_API_KEY=" + key, "HANGDOG_TASKS_ONSESSIONEND=keep"}
	x.start(env, "--dangerously-skip-permissions", "Watch notes.txt and tell me when it changes.")

	// The watcher is made and the turn ends.
	deadline := time.Now().Add(90 * time.Second)
	for {
		res, _, final := a.snapshot()
		if len(res) == 2 && !final.IsZero() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the first turn did not end; results %v; screen:\n%s", res, x.screen())
		}
		time.Sleep(200 * time.Millisecond)
	}
	res, _, _ := a.snapshot()
	id := regexp.MustCompile(`\bw\d+\b`).FindString(res[0].Text)
	if id == "" {
		t.Fatalf("no watcher id in what watch create printed: %q", res[0].Text)
	}
	var ls []struct{ Spec struct{ ID, Owner string } }
	json.Unmarshal([]byte(w.hangdog("watch", "ls", "--all", "--json")), &ls)
	if len(ls) != 1 || !strings.HasPrefix(ls[0].Spec.Owner, "claude-") {
		t.Errorf("the watcher the session made is not the session's own (claude-ID): %+v", ls)
	}
	// The background build ends while the session idles: a turn.
	ended := regexp.MustCompile(`hangdog: #(\d+) Background task t\d+ [^\n]*finished: exit 0[^\n]* ⏎ built-it`)
	s, at, ok := waitText(a, ended, time.Time{}, time.Duration(float64(wakeLimit)*testbin.LoadScale()))
	if !ok {
		t.Fatalf("no request carried the end of the session's background task; screen:\n%s", x.screen())
	}
	build := ended.FindStringSubmatch(s)[1]
	t.Logf("the build's end (event #%s) woke the session %.2f s after it was logged", build, at.Sub(w.eventTime(build)).Seconds())
	time.Sleep(3 * time.Second) // idle at its prompt

	fired := regexp.MustCompile(`hangdog: #(\d+) Watcher ` + id + ` [^\n]*watch_fired`)
	fire := func(text string) time.Time {
		t0 := time.Now()
		if err := os.WriteFile(filepath.Join(w.work, "notes.txt"), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return t0
	}
	// Three changes, each while the session idles: three turns.
	var told []string
	for i, v := range []string{"v2\n", "v3\n", "v4\n"} {
		t0 := fire(v)
		s, at, ok := waitText(a, fired, t0, time.Duration(float64(wakeLimit)*testbin.LoadScale()))
		if !ok {
			t.Fatalf("change %d: no request carried the watcher's fire within %v; screen:\n%s", i+1, wakeLimit, x.screen())
		}
		seq := fired.FindStringSubmatch(s)[1]
		told = append(told, seq)
		logged := w.eventTime(seq)
		t.Logf("change %d: event #%s logged %.2f s after the change, request %.2f s after the event (%.2f s after the change)",
			i+1, seq, logged.Sub(t0).Seconds(), at.Sub(logged).Seconds(), at.Sub(t0).Seconds())
		time.Sleep(3 * time.Second) // idle again
	}

	// Closed, the file changes again, resumed: the fire is told then.
	x.stop()
	waitGone(t, w.marker, "claude")
	t1 := fire("v5\n")
	time.Sleep(5 * time.Second) // the fire is in the log, nobody listening
	x.start(env, "--dangerously-skip-permissions", "--continue")
	var s2 string
	deadline = time.Now().Add(time.Duration(float64(60*time.Second) * testbin.LoadScale()))
	for s2 == "" && time.Now().Before(deadline) {
		texts, at := a.timedTexts()
		for i, s := range texts {
			if m := fired.FindStringSubmatch(s); m != nil && !slices.Contains(told, m[1]) && at[i].After(t1) {
				s2 = s
				t.Logf("told after the restart, %.1f s after the change: %s", at[i].Sub(t1).Seconds(), line(s))
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	if s2 == "" {
		t.Fatalf("the fire that came while the session was closed never reached it; screen:\n%s", x.screen())
	}
	time.Sleep(5 * time.Second)
	for _, n := range append(told, build, fired.FindStringSubmatch(s2)[1]) {
		if c := count(a, regexp.MustCompile(`hangdog: #`+n+` `)); c != 1 {
			t.Errorf("event #%s reached the model %d times, want once", n, c)
		}
	}
}

// eventTime is when event #seq was logged.
func (w *world) eventTime(seq string) time.Time {
	w.t.Helper()
	for _, l := range strings.Split(w.hangdog("events", "--all", "--json"), "\n") {
		var e struct {
			Seq  json.Number
			Time time.Time
		}
		if json.Unmarshal([]byte(l), &e) == nil && e.Seq.String() == seq {
			return e.Time
		}
	}
	w.t.Fatalf("no event #%s in the log", seq)
	return time.Time{}
}

// waitGone waits until no process of the run named like name is left.
func waitGone(t *testing.T, marker, name string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if !markedAlive(marker, name) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s still runs 15 s after its terminal closed", name)
}

// markedAlive reports whether a process whose environment holds marker and
// whose command name starts with name is alive.
func markedAlive(marker, name string) bool {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !strings.Contains("\x00"+string(env)+"\x00", "\x00"+marker+"\x00") {
			continue
		}
		comm, _ := os.ReadFile("/proc/" + e.Name() + "/comm")
		if strings.HasPrefix(string(comm), name) {
			return true
		}
	}
	return false
}
