//go:build linux

package claudecode

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hangdog/hangdog/internal/testbin"
)

// ClaudeVersion is the Claude Code CLI these tests are pinned to; .ci/run
// installs it with npm.
const ClaudeVersion = "2.1.328"

var (
	claude   string // the claude binary, or "" with skipWhy
	skipWhy  string
	binDir   string // hangdog, hangdog-full, hangdog-supervisor, hangdog-watch
	repoRoot string
	runs     = make(chan struct{}, 3) // claude processes at once (2 shared cores)
	runSeq   atomic.Int64
)

// pinnedClaude is the CLI these tests run, found at $HANGDOG_CLAUDE, on
// PATH, or under the prefix .ci/run installs into ($HANGDOG_E2E_PREFIX).
var pinnedClaude = testbin.Pinned{
	Name: "claude", Version: ClaudeVersion, EnvBin: "HANGDOG_CLAUDE", EnvPrefix: "HANGDOG_E2E_PREFIX",
	Dir: "claude-code-" + ClaudeVersion, Package: "@anthropic-ai/claude-code", Installer: ".ci/run",
}

func TestMain(m *testing.M) {
	claude, skipWhy = pinnedClaude.Find()
	wd, _ := os.Getwd()
	repoRoot = filepath.Clean(filepath.Join(wd, "../.."))
	testbin.Main(m, "hdcc", claude != "", func(bin string) { binDir = testbin.Dir(bin) })
}

func needClaude(t *testing.T) {
	t.Helper()
	if claude == "" {
		t.Skip(skipWhy)
	}
}

// run is one `claude -p` session of a scenario in one mode.
type run struct {
	mode, work, hdHome string
	home               string // the session's HOME (Claude Code saves large outputs under it)
	stream             string // claude's stream-json output: what the person's client shows
	results            []result
	texts              []string // other text Claude Code sent (hook context, notifications, Stop reasons)
	wall               time.Duration
	afterFinal         time.Duration // from the last end_turn reply to claude's exit
	rc                 int
	stderr             string
	tasks              []map[string]any // hangdog's task list afterwards
}

// seen is everything the model was sent after the prompt.
func (r *run) seen() string {
	var b strings.Builder
	for _, x := range r.results {
		b.WriteString(x.Text + "\n")
	}
	for _, x := range r.texts {
		b.WriteString(x + "\n")
	}
	return b.String()
}

// supervised reports whether hangdog ran a task of exactly this command.
func (r *run) supervised(command string) bool {
	for _, t := range r.tasks {
		if c, _ := t["command"].(string); c == command {
			return true
		}
	}
	return false
}

// startClaude runs one session: a fresh HOME (with the recipe in hook and
// mcp modes), hangdog home and work dir; the stand-in on 127.0.0.1.
func startClaude(t *testing.T, sc scenario, mode string) *run {
	t.Helper()
	runs <- struct{}{}
	defer func() { <-runs }()
	root, err := os.MkdirTemp("", "cc") // short: hangdog's sockets live under it
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	home, work, hd := filepath.Join(root, "home"), filepath.Join(root, "work"), filepath.Join(root, "h")
	for _, d := range []string{home, work, filepath.Join(root, "cfg"), filepath.Join(root, "st")} {
		os.MkdirAll(d, 0o700)
	}
	marker := fmt.Sprintf("HANGDOG_E2E_RUN=%d-%d", os.Getpid(), runSeq.Add(1))
	env := []string{"HOME=" + home, "HANGDOG_HOME=" + hd, "XDG_CONFIG_HOME=" + filepath.Join(root, "cfg"),
		"XDG_STATE_HOME=" + filepath.Join(root, "st"), "PATH=" + binDir + ":" + os.Getenv("PATH"), marker,
		"TERM=xterm-256color", "LANG=C.UTF-8", "USER=" + os.Getenv("USER"), "TMPDIR=" + os.TempDir(),
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t"}
	if sc.setup != "" {
		c := exec.Command("bash", "-c", sc.setup)
		c.Dir, c.Env = work, env
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("setup: %v\n%s", err, out)
		}
	}
	if sc.permissions != nil {
		os.MkdirAll(filepath.Join(work, ".claude"), 0o700)
		b, _ := json.Marshal(map[string]any{"permissions": sc.permissions})
		os.WriteFile(filepath.Join(work, ".claude", "settings.json"), b, 0o600)
	}
	debug := ""
	if d := os.Getenv("HANGDOG_E2E_DEBUG"); d != "" {
		debug = filepath.Join(d, sc.name+"-"+mode+".jsonl")
	}
	a := newAPI(mode, sc.turns, debug)
	defer a.srv.Close()
	args := []string{"-p", "Follow the script.", "--output-format", "stream-json", "--verbose", "--include-hook-events"}
	if mode == "plugin" { // the checkout's plugin, installed with the real CLI
		for _, sub := range [][]string{{"plugin", "marketplace", "add", repoRoot}, {"plugin", "install", pluginName}} {
			c := exec.Command(claude, sub...)
			c.Dir, c.Env = work, append(env, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1")
			if out, err := c.CombinedOutput(); err != nil {
				t.Fatalf("claude %s: %v\n%s", strings.Join(sub, " "), err, out)
			}
		}
	} else if mode == "hook" || mode == "mcp" { // the recipe, installed as README says
		os.MkdirAll(filepath.Join(home, ".claude"), 0o700)
		copyFile(t, filepath.Join(repoRoot, "scripts/claude-code/settings.json"), filepath.Join(home, ".claude/settings.json"))
	}
	var extraEnv []string
	if mode == "prefix" { // no hook: Claude Code's CLAUDE_CODE_SHELL_PREFIX runs its own shell line under hangdog run (the floor of a supervised call)
		script := filepath.Join(root, "prefix.sh")
		os.WriteFile(script, []byte("#!/bin/sh\nexec "+filepath.Join(binDir, "hangdog")+" run -- \"$@\"\n"), 0o700)
		extraEnv = append(extraEnv, "CLAUDE_CODE_SHELL_PREFIX="+script)
	}
	if mode == "nullhook" { // the client's own cost of a PreToolUse hook: one that reads its input and says nothing
		os.MkdirAll(filepath.Join(home, ".claude"), 0o700)
		b, _ := json.Marshal(map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{"matcher": "Bash",
			"hooks": []any{map[string]any{"type": "command", "command": "cat >/dev/null", "timeout": 10}}}}}})
		os.WriteFile(filepath.Join(home, ".claude/settings.json"), b, 0o600)
	}
	if mode == "nullrewrite" { // the client's own cost of a hook that rewrites the call as the recipe does (updatedInput, allow), the command left as it was: the floor of any hook recipe
		os.MkdirAll(filepath.Join(home, ".claude"), 0o700)
		ans, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "PreToolUse",
			"updatedInput": map[string]any{"command": "true", "timeout": 30000}, "permissionDecision": "allow"}})
		script := filepath.Join(root, "rewrite.sh")
		os.WriteFile(script, []byte("#!/bin/sh\ncat >/dev/null\nprintf '%s\\n' '"+string(ans)+"'\n"), 0o700)
		b, _ := json.Marshal(map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{"matcher": "Bash",
			"hooks": []any{map[string]any{"type": "command", "command": script, "timeout": 10}}}}}})
		os.WriteFile(filepath.Join(home, ".claude/settings.json"), b, 0o600)
	}
	if mode == "mcp" || mode == "mcp-alone" { // the MCP config README gives, hangdog found on PATH
		args = append(args, "--mcp-config", filepath.Join(repoRoot, "scripts/mcp-config/claude-code.mcp.json"),
			"--strict-mcp-config", "--disallowedTools", "Bash")
	}
	if mode == "mcpproxy" { // a stdio server behind `hangdog mcp-proxy`, as docs/agents.md configures it
		args = append(args, "--mcp-config", proxyConfig(t, root), "--strict-mcp-config")
	}
	if mode == "nullmcp" { // the client's own cost of an MCP tool call: a server that answers at once and runs nothing
		args = append(args, "--mcp-config", nullMCPConfig(t, root), "--strict-mcp-config", "--disallowedTools", "Bash")
	}
	if sc.perm == "default" {
		args = append(args, "--permission-mode", "default")
	} else {
		args = append(args, "--dangerously-skip-permissions")
	}
	limit := time.Duration(timeoutS()) * time.Second
	if sc.endless[mode] {
		limit = 15 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	c := exec.CommandContext(ctx, claude, args...)
	c.Dir = work
	c.Env = append(env, "ANTHROPIC_BASE_URL="+a.srv.URL, "ANTHROPIC_API_KEY=sk-ant-standin",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1",
		"DISABLE_ERROR_REPORTING=1", "DISABLE_BUG_COMMAND=1", "CLAUDE_CODE_DISABLE_TERMINAL_TITLE=1",
		"IS_SANDBOX=1", "ENABLE_TOOL_SEARCH=false")
	c.Env = append(c.Env, extraEnv...)
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
	var stdout, stderr strings.Builder
	c.Stdout, c.Stderr = &stdout, &stderr
	t0 := time.Now()
	err = c.Run()
	end := time.Now()
	r := &run{mode: mode, work: work, hdHome: hd, home: home, wall: end.Sub(t0), stderr: stderr.String(), stream: stdout.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.rc = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("claude: %v", err)
	}
	if ctx.Err() != nil {
		r.rc = -1
	}
	r.results, r.texts, _ = a.snapshot()
	_, _, finalAt := a.snapshot()
	if !finalAt.IsZero() {
		r.afterFinal = end.Sub(finalAt)
	}
	cleanup(t, env, marker, r)
	return r
}

// cleanup lists hangdog's tasks, kills those still running, then kills by
// PID whatever else this run started (it carries the run's marker).
func cleanup(t *testing.T, env []string, marker string, r *run) {
	hd := filepath.Join(binDir, "hangdog")
	ls := exec.Command(hd, "bg", "ls", "--json", "--all") // every task the run left, whoever owns it
	ls.Env = env
	if out, err := ls.Output(); err == nil {
		json.Unmarshal(out, &r.tasks)
	}
	for _, task := range r.tasks {
		if task["state"] == "running" || task["state"] == "starting" {
			k := exec.Command(hd, "bg", "kill", fmt.Sprint(task["id"]))
			k.Env = env
			k.Run()
		}
	}
	testbin.KillMarked(marker)
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// line is the first line of s, shortened, for the log and the README table.
func line(s string) string {
	s = strings.ReplaceAll(strings.TrimSpace(s), "\x1b", `\e`)
	s = strings.ReplaceAll(s, "\n", " ⏎ ")
	if r := []rune(s); len(r) > 160 {
		s = string(r[:160]) + "…"
	}
	return s
}

// report logs what the model saw in a run, and appends it to
// $HANGDOG_E2E_REPORT (one JSON object per line) when that is set.
func report(t *testing.T, name string, r *run) {
	t.Helper()
	for _, x := range r.results {
		t.Logf("%s/%s turn %d: %.1f s is_error=%v: %s", name, r.mode, x.Turn, x.Wall.Seconds(), x.IsError, line(x.Text))
	}
	for _, x := range r.texts {
		t.Logf("%s/%s other text: %s", name, r.mode, line(x))
	}
	t.Logf("%s/%s: claude exit %d after %.1f s, %.1f s after its final turn", name, r.mode, r.rc, r.wall.Seconds(), r.afterFinal.Seconds())
	if r.rc != 0 {
		t.Logf("claude stderr: %s", r.stderr)
	}
	if path := os.Getenv("HANGDOG_E2E_REPORT"); path != "" {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err == nil {
			b, _ := json.Marshal(map[string]any{"scenario": name, "mode": r.mode, "results": r.results, "texts": r.texts,
				"wall_s": r.wall.Seconds(), "after_final_s": r.afterFinal.Seconds(), "rc": r.rc})
			f.Write(append(b, '\n'))
			f.Close()
		}
	}
}

// timeoutS is how long one claude session may take: $HANGDOG_E2E_TIMEOUT
// seconds, default 150.
func timeoutS() int {
	n := 0
	fmt.Sscan(os.Getenv("HANGDOG_E2E_TIMEOUT"), &n)
	if n <= 0 {
		return 150
	}
	return n
}
