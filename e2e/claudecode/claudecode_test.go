//go:build linux

package claudecode

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hangdog/hangdog/internal/testbin"
)

// scenario is a scripted session; check asserts on each mode's run.
type scenario struct {
	name        string
	setup       string         // bash, in the work dir, before claude starts
	perm        string         // "default" (--permission-mode default) or "" (--dangerously-skip-permissions)
	permissions map[string]any // the project's .claude/settings.json permissions
	modes       []string
	turns       []turn
	check       func(t *testing.T, runs map[string]*run)
	// endless names the modes where claude -p is known not to end by
	// itself (the finding is recorded, not failed); they get 15 s.
	endless map[string]bool
	slow    bool // only with HANGDOG_E2E=all or slow (make e2e), not in make test
}

func bash(command string, timeoutMs int) turn {
	return turn{Tool: "Bash", Input: map[string]any{"command": command, "description": "scripted", "timeout": timeoutMs}}
}

func done() turn { return turn{Text: "Done."} }

var all = []string{"plain", "hook", "mcp"}

// slowest is how long `claude -p` may go on after its final turn.
const slowest = 30 * time.Second

var escape = regexp.MustCompile("\x1b")

// slowTier skips a test outside the slow tier (HANGDOG_E2E=slow or all):
// the end-to-end tests that take most of a minute each, which `make
// e2e-slow` runs (so does CI, after `make test`) and `make test` does not,
// to keep it under ten minutes on two cores.
func slowTier(t *testing.T) {
	t.Helper()
	if os.Getenv("HANGDOG_E2E") == "" {
		t.Skip("slow: run with HANGDOG_E2E=slow or all (make e2e-slow, make e2e; CI runs it)")
	}
}

func TestClaudeCode(t *testing.T) {
	needClaude(t)
	which := os.Getenv("HANGDOG_E2E") // "" (make test: the quick ones), "slow", "all"
	for _, sc := range scenarios() {
		t.Run(sc.name, func(t *testing.T) {
			if sc.slow && which == "" || !sc.slow && which == "slow" {
				t.Skipf("slow=%v: run with HANGDOG_E2E=all (make e2e)", sc.slow)
			}
			t.Parallel()
			modes := sc.modes
			if modes == nil {
				modes = all
			}
			if slices.Contains(modes, "hook") {
				// The plugin installs the hooks; the hook mode's checks
				// hold for it too.
				modes = append(slices.Clone(modes), "plugin")
			}
			got := map[string]*run{}
			var mu sync.Mutex
			var wg sync.WaitGroup
			for _, mode := range modes {
				wg.Go(func() {
					r := startClaude(t, sc, mode)
					mu.Lock()
					got[mode] = r
					mu.Unlock()
				})
			}
			wg.Wait()
			for _, mode := range modes {
				r := got[mode]
				report(t, sc.name, r)
				if sc.endless[mode] {
					t.Logf("%s: as known, claude -p did not end by itself (exit %d, %.1f s after its final turn)", mode, r.rc, r.afterFinal.Seconds())
				} else if r.rc != 0 {
					t.Errorf("%s: claude -p exited %d", mode, r.rc)
				} else if r.afterFinal > time.Duration(float64(slowest)*testbin.LoadScale()) {
					t.Errorf("%s: claude -p ended %.1f s after its final turn, want < %v", mode, r.afterFinal.Seconds(), slowest)
				}
				want := 0
				for _, tu := range sc.turns {
					if tu.Tool != "" {
						want++
					}
				}
				if len(r.results) != want {
					t.Errorf("%s: %d tool results, want %d", mode, len(r.results), want)
				}
				if !sc.endless[mode] {
					// No call may block anywhere near a tool timeout.
					for _, x := range r.results {
						within(t, r, x, 28*time.Second)
					}
				}
			}
			if !t.Failed() {
				plugin, viaPlugin := got["plugin"]
				delete(got, "plugin")
				sc.check(t, got)
				if viaPlugin {
					t.Run("plugin", func(t *testing.T) {
						got["hook"] = plugin
						sc.check(t, got)
					})
				}
			}
		})
	}
}

func first(t *testing.T, r *run, n int) result {
	t.Helper()
	if len(r.results) <= n {
		t.Fatalf("%s: no result for call %d", r.mode, n)
	}
	return r.results[n]
}

// within fails a call slower than limit. On a machine busier than one
// runnable process per core the limit grows with the load (the tests share
// their cores with builds), so a slow machine is not taken for a hang.
func within(t *testing.T, r *run, x result, limit time.Duration) {
	t.Helper()
	scaled := time.Duration(float64(limit) * testbin.LoadScale())
	if x.Wall > scaled {
		t.Errorf("%s: call %d took %.1f s, want < %v (%v at this load): %s", r.mode, x.Turn, x.Wall.Seconds(), limit, scaled.Round(100*time.Millisecond), line(x.Text))
	}
}

func contains(t *testing.T, r *run, x result, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(x.Text, w) {
			t.Errorf("%s: call %d: the model saw %q, which lacks %q", r.mode, x.Turn, x.Text, w)
		}
	}
}

// manyCommits makes a repository of 300 commits, "commit-1" to "commit-300":
// a git log of about 70 KB, past what Claude Code shows whole.
const manyCommits = "git init -q . && for i in $(seq 1 300); do echo $i > f; git add f; git commit -qm \"commit-$i\"; done"

var (
	savedTo    = regexp.MustCompile(`Full output saved to: (\S+)`)
	commitLine = regexp.MustCompile(`(?m)^ +commit-(\d+)$`)
)

// checkBigLog checks what the model can read of the 300-commit log: the
// preview in the result starts at the newest commit, and the file Claude
// Code saved (which the model can read) holds all 300, newest first.
func checkBigLog(t *testing.T, r *run, x result) {
	t.Helper()
	m := savedTo.FindStringSubmatch(x.Text)
	if m == nil {
		t.Errorf("%s: Claude Code saved no file of the large output: %q", r.mode, line(x.Text))
		return
	}
	if first := commitLine.FindStringSubmatch(x.Text); first == nil || first[1] != "300" {
		t.Errorf("%s: the preview does not start at the newest commit: %q", r.mode, line(x.Text))
	}
	b, err := os.ReadFile(m[1])
	if err != nil {
		t.Errorf("%s: the saved output: %v", r.mode, err)
		return
	}
	got := commitLine.FindAllStringSubmatch(string(b), -1)
	if len(got) != 300 || got[0][1] != "300" || got[299][1] != "1" {
		t.Errorf("%s: the saved output holds %d commits (want 300, commit-300 first, commit-1 last)", r.mode, len(got))
	}
	if escape.Match(b) || bytes.Contains(b, []byte("\r")) {
		t.Errorf("%s: escape codes or carriage returns in the saved output", r.mode)
	}
}

func scenarios() []scenario {
	commits := "git init -q . && git config core.pager less && for i in $(seq 1 40); do echo $i > f; git add f; git commit -qm \"commit-$i\"; done"
	return []scenario{
		{name: "echo", turns: []turn{bash("echo hello", 30000), done()}, check: func(t *testing.T, runs map[string]*run) {
			for mode, r := range runs {
				x := first(t, r, 0)
				contains(t, r, x, "hello")
				within(t, r, x, 5*time.Second)
				if x.IsError {
					t.Errorf("%s: echo is an error: %q", mode, x.Text)
				}
			}
			if !runs["hook"].supervised("echo hello") {
				t.Errorf("hook: echo hello was not run by hangdog: %v", runs["hook"].tasks)
			}
		}},
		{name: "prompt", slow: true, turns: []turn{bash(`read -p "Continue? [y/N] " a; echo "got $a"`, 30000), done()},
			check: func(t *testing.T, runs map[string]*run) {
				for _, mode := range []string{"hook", "mcp"} {
					r := runs[mode]
					x := first(t, r, 0)
					within(t, r, x, 15*time.Second)
					contains(t, r, x, "Continue? [y/N]")
				}
				contains(t, runs["hook"], first(t, runs["hook"], 0), "waiting for input", "hangdog bg send t")
			}},
		{name: "pager", setup: commits, turns: []turn{bash("git log", 30000), done()}, check: func(t *testing.T, runs map[string]*run) {
			for _, mode := range []string{"plain", "hook"} {
				r := runs[mode]
				x := first(t, r, 0)
				within(t, r, x, 2*time.Second)
				if !regexp.MustCompile(`(?m)^ +commit-1$`).MatchString(x.Text) || !regexp.MustCompile(`(?m)^ +commit-40$`).MatchString(x.Text) {
					t.Errorf("%s: the whole log did not reach the model: %q", mode, x.Text)
				}
				if escape.MatchString(x.Text) {
					t.Errorf("%s: escape codes in what the model saw: %q", mode, x.Text)
				}
			}
			if !runs["hook"].supervised("git log") {
				t.Errorf("hook: git log was not supervised")
			}
		}},
		{name: "big-log", modes: []string{"plain", "hook"}, setup: manyCommits,
			turns: []turn{bash("git log", 30000), done()}, check: func(t *testing.T, runs map[string]*run) {
				// Claude Code keeps a preview and a file of a large
				// output itself: hangdog must hand it the output whole,
				// head first, as plain Claude Code's own Bash does.
				for _, r := range runs {
					x := first(t, r, 0)
					checkBigLog(t, r, x)
				}
			}},
		{name: "server", slow: true, endless: map[string]bool{"plain": true},
			turns: []turn{{Tool: "Bash", Input: map[string]any{"command": "python3 -m http.server 0 --bind 127.0.0.1", "timeout": 30000},
				ByMode: map[string]map[string]any{
					"plain": {"command": "python3 -m http.server 0 --bind 127.0.0.1", "timeout": 5000},
					"mcp":   {"command": "python3 -m http.server 0 --bind 127.0.0.1", "timeout": 20000}}}, done()},
			check: func(t *testing.T, runs map[string]*run) {
				r := runs["hook"]
				x := first(t, r, 0)
				within(t, r, x, 15*time.Second)
				if !regexp.MustCompile(`127\.0\.0\.1:\d+`).MatchString(x.Text) {
					t.Errorf("hook: the server's address is not in %q", x.Text)
				}
				contains(t, r, x, "server", "hangdog bg kill")
				if strings.Contains(x.Text, "bg send") {
					t.Errorf("hook: a server's notice suggests typing into it: %q", x.Text)
				}
			}},
		{name: "cd-then-pwd", setup: "mkdir sub", turns: []turn{bash("cd sub", 30000), bash("pwd", 30000), done()},
			check: func(t *testing.T, runs map[string]*run) {
				for _, r := range runs {
					x := first(t, r, 1)
					if !strings.HasSuffix(strings.TrimSpace(x.Text), "/sub") {
						t.Errorf("%s: pwd after cd sub printed %q", r.mode, x.Text)
					}
				}
			}},
		{name: "cd-and-cmd", setup: "mkdir sub && touch sub/inside.txt", turns: []turn{bash("cd sub && ls", 30000), bash("pwd", 30000), done()},
			check: func(t *testing.T, runs map[string]*run) {
				for _, r := range runs {
					contains(t, r, first(t, r, 0), "inside.txt")
					if x := first(t, r, 1); !strings.HasSuffix(strings.TrimSpace(x.Text), "/sub") {
						t.Errorf("%s: pwd after `cd sub && ls` printed %q", r.mode, x.Text)
					}
				}
				if !runs["hook"].supervised("cd sub && ls") {
					t.Errorf("hook: cd sub && ls was not supervised: %v", runs["hook"].tasks)
				}
			}},
		{name: "background-end", turns: []turn{
			{Tool: "Bash", Input: map[string]any{"command": "sleep 6; echo built-it", "description": "build", "run_in_background": true},
				ByMode: map[string]map[string]any{"hook": {"command": "sleep 6; echo built-it", "description": "build", "timeout": 15000}}},
			{Text: "Waiting for the build."}, done()},
			check: func(t *testing.T, runs map[string]*run) {
				for _, r := range runs {
					// The end must reach the model after its last tool call,
					// before claude -p ends.
					var after strings.Builder
					for _, s := range r.texts {
						after.WriteString(s + "\n")
					}
					if !strings.Contains(after.String(), "built-it") && !strings.Contains(after.String(), "exit 0") && !strings.Contains(after.String(), "completed") {
						t.Errorf("%s: the background job's end never reached the model; it saw %q", r.mode, after.String())
					}
				}
				for _, mode := range []string{"hook", "mcp"} {
					if s := strings.Join(runs[mode].texts, "\n"); strings.Count(s, "finished: exit 0") != 1 || !strings.Contains(s, "    built-it") {
						t.Errorf("%s: the news should reach the model once, with the output: %q", mode, s)
					}
				}
				// Told as additional context: the model gets a turn with
				// it, and the person sees no "stop hook reported a
				// problem" banner (what a blocking Stop hook shows).
				for _, mode := range []string{"hook", "mcp"} {
					r := runs[mode]
					if s := strings.Join(r.texts, "\n"); !strings.Contains(s, "Stop hook additional context") {
						t.Errorf("%s: the news did not come as the Stop hook's additional context: %q", mode, s)
					}
					if strings.Contains(r.stream, "stop-hook-error") || strings.Contains(r.stream, "stop hook reported a problem") {
						t.Errorf("%s: Claude Code showed the person the Stop hook's error banner", mode)
					}
				}
			}},
		{name: "news-next-call", modes: []string{"hook", "mcp"},
			// The job is detached at 5 s and ends at 12 s, inside the
			// second call (5 s plus 8 s at the least) however slow the
			// machine makes the first one come back.
			turns: []turn{{Tool: "Bash", Input: map[string]any{"command": "sleep 12; echo built-it", "timeout": 15000},
				ByMode: map[string]map[string]any{"mcp": {"command": "sleep 12; echo built-it", "timeout": 5000}}},
				bash("sleep 8", 30000), bash("cd .", 30000), done()},
			check: func(t *testing.T, runs map[string]*run) {
				// A job moved to the background ends between calls: its
				// end reaches the model with a later call, once (through
				// the hook: additionalContext of a call it leaves alone).
				for _, r := range runs {
					if s := r.seen(); strings.Count(s, "finished: exit 0") != 1 || !strings.Contains(s, "    built-it") {
						t.Errorf("%s: the end of the job should reach the model once, with its output: %q", r.mode, s)
					}
				}
				if s := strings.Join(runs["hook"].texts, "\n"); !strings.Contains(s, "built-it") {
					t.Errorf("hook: the news did not come as context of the `cd .` call: %q", s)
				}
			}},
		{name: "allow-rule", modes: []string{"plain", "hook"}, perm: "default", setup: "mkdir sub",
			permissions: map[string]any{"allow": []string{"Bash(echo:*)"}},
			turns:       []turn{bash("echo hello", 30000), bash("cd sub && echo in-sub", 30000), done()},
			check: func(t *testing.T, runs map[string]*run) {
				for _, r := range runs {
					x := first(t, r, 0)
					contains(t, r, x, "hello")
					if x.IsError {
						t.Errorf("%s: an allowed echo was refused: %q", r.mode, x.Text)
					}
				}
				if !runs["hook"].supervised("echo hello") {
					t.Errorf("hook: the allowed echo was not supervised: %v", runs["hook"].tasks)
				}
				p, h := first(t, runs["plain"], 1), first(t, runs["hook"], 1)
				if p.IsError != h.IsError {
					t.Errorf("`cd sub && echo`: plain is_error=%v (%q), hook is_error=%v (%q)", p.IsError, p.Text, h.IsError, h.Text)
				}
			}},
		{name: "deny-rule", modes: []string{"plain", "hook"}, perm: "default", setup: "touch victim.txt",
			permissions: map[string]any{"allow": []string{"Bash"}, "deny": []string{"Bash(rm:*)"}},
			turns:       []turn{bash("rm -f victim.txt", 30000), done()},
			check: func(t *testing.T, runs map[string]*run) {
				p, h := first(t, runs["plain"], 0), first(t, runs["hook"], 0)
				if h.Text != p.Text || h.IsError != p.IsError {
					t.Errorf("a denied rm: plain is_error=%v %q; hook is_error=%v %q", p.IsError, p.Text, h.IsError, h.Text)
				}
				for _, r := range runs {
					x := first(t, r, 0)
					if !x.IsError || !strings.Contains(x.Text, "denied") {
						t.Errorf("%s: a denied rm was not denied: is_error=%v %q", r.mode, x.IsError, x.Text)
					}
					if _, err := os.Stat(filepath.Join(r.work, "victim.txt")); err != nil {
						t.Errorf("%s: the denied rm ran: %v", r.mode, err)
					}
				}
			}},
		{name: "no-rule", modes: []string{"plain", "hook"}, perm: "default",
			permissions: map[string]any{"allow": []string{"Bash(echo:*)"}},
			turns:       []turn{bash("touch made.txt", 30000), done()},
			check: func(t *testing.T, runs map[string]*run) {
				p, h := first(t, runs["plain"], 0), first(t, runs["hook"], 0)
				pt, ht := strings.ReplaceAll(p.Text, runs["plain"].work, "WORK"), strings.ReplaceAll(h.Text, runs["hook"].work, "WORK")
				if !p.IsError || p.IsError != h.IsError || pt != ht {
					t.Errorf("a command no rule allows: plain is_error=%v %q; hook is_error=%v %q", p.IsError, p.Text, h.IsError, h.Text)
				}
				for _, r := range runs {
					if _, err := os.Stat(filepath.Join(r.work, "made.txt")); err == nil {
						t.Errorf("%s: the refused touch ran", r.mode)
					}
				}
			}},
	}
}
