//go:build linux

package scripts

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/internal/testbin"
)

// binDir holds the hangdog binary under test, built once; the recipes find
// it on PATH or through HANGDOG_BIN, as they would on a user's machine.
var binDir string

// here is this directory, where the recipes are.
var here string

func TestMain(m *testing.M) {
	wd, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	here = wd
	dir, err := os.MkdirTemp("", "hdrecipes")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	binDir = dir
	if _, err := testbin.Build(dir); err != nil {
		os.RemoveAll(dir)
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func needPython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed; the harness recipe is a Python script")
	}
}

// hangdog is the binary under test, as the recipe's settings.json runs it.
func hangdog() string { return filepath.Join(binDir, "hangdog") }

// world is one isolated hangdog home plus a project directory.
type world struct {
	t       *testing.T
	home    string
	project string
	env     []string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	root := testbin.TempRoot(t, "hd")
	w := &world{t: t, home: testbin.Home(root), project: filepath.Join(root, "p")}
	if err := os.Mkdir(w.project, 0o700); err != nil {
		t.Fatal(err)
	}
	w.env = append(os.Environ(),
		"HANGDOG_HOME="+w.home, "XDG_CONFIG_HOME="+filepath.Join(root, "c"),
		"HANGDOG_BIN="+filepath.Join(binDir, "hangdog"),
		"PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"),
		"HANGDOG_PERMISSION=", "HANGDOG_STOP_WAIT=0", "CLAUDE_PROJECT_DIR="+w.project)
	return w
}

// run runs a program in the project directory with stdin; stdout, and the
// exit code.
func (w *world) run(stdin string, extraEnv []string, name string, args ...string) (string, int) {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, name, args...)
	c.Dir = w.project
	c.Env = append(w.env, extraEnv...)
	c.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		w.t.Fatalf("%s %v: %v", name, args, err)
	}
	if errb.Len() > 0 {
		w.t.Logf("%s stderr: %s", filepath.Base(name), errb.String())
	}
	return out.String(), code
}

func (w *world) hook(input map[string]any, extraEnv ...string) string {
	w.t.Helper()
	b, _ := json.Marshal(input)
	out, code := w.run(string(b), extraEnv, hangdog(), "hook")
	if code != 0 {
		w.t.Fatalf("hook exited %d: %s", code, out)
	}
	return out
}

// bgRun starts a background task with the CLI and waits for its end event.
func (w *world) bgRun(command string) (string, bgtasks.Event) {
	w.t.Helper()
	out, code := w.run("", nil, filepath.Join(binDir, "hangdog"), "bg", "run", "--", command)
	if code != 0 {
		w.t.Fatalf("bg run exited %d", code)
	}
	id := strings.TrimSpace(out)
	return id, w.endEvent(id)
}

func (w *world) endEvent(id string) bgtasks.Event {
	w.t.Helper()
	reg, err := bgtasks.Open(w.home)
	if err != nil {
		w.t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		evs, err := reg.Events(0)
		if err != nil {
			w.t.Fatal(err)
		}
		for _, e := range evs {
			if e.TaskID == id && e.Kind == bgtasks.EventExited {
				return e
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	w.t.Fatalf("no end event for %s", id)
	return bgtasks.Event{}
}

type preToolUseOutput struct {
	HookSpecificOutput struct {
		HookEventName            string         `json:"hookEventName"`
		PermissionDecision       string         `json:"permissionDecision"`
		PermissionDecisionReason string         `json:"permissionDecisionReason"`
		UpdatedInput             map[string]any `json:"updatedInput"`
		AdditionalContext        string         `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

func preToolUse(command string, extra map[string]any) map[string]any {
	in := map[string]any{
		"session_id": "s1", "hook_event_name": "PreToolUse", "tool_name": "Bash", "permission_mode": "bypassPermissions",
		"tool_use_id": "toolu_1", "tool_input": map[string]any{"command": command, "description": "test run", "timeout": 120000},
	}
	for k, v := range extra {
		in[k] = v
	}
	return in
}

func (w *world) pre(in map[string]any, extraEnv ...string) preToolUseOutput {
	w.t.Helper()
	in["cwd"] = w.project
	var got preToolUseOutput
	if out := w.hook(in, extraEnv...); strings.TrimSpace(out) != "" {
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			w.t.Fatalf("hook printed %q: %v", out, err)
		}
	}
	return got
}

func TestPreToolUseRoutesBashThroughHangdogRun(t *testing.T) {
	w := newWorld(t)
	original := `printf '%s\n' "it's \"quoted\""; echo $((6*7)); printf '\033[31mred\033[0m\n'; exit 3`
	h := w.pre(preToolUse(original, nil)).HookSpecificOutput
	if h.HookEventName != "PreToolUse" || h.UpdatedInput == nil || h.PermissionDecision != "allow" {
		t.Fatalf("a session that bypasses permissions: no supervised, allowed rewrite: %+v", h)
	}
	if h.UpdatedInput["description"] != "test run" || h.UpdatedInput["timeout"] != float64(120000) {
		t.Errorf("other Bash inputs not kept: %v", h.UpdatedInput)
	}
	// Run the rewritten command as Claude Code would: it must do what the
	// original did, under a supervisor, in plain text.
	rewritten := h.UpdatedInput["command"].(string)
	out, code := w.run("", nil, "bash", "-c", rewritten)
	if code != 3 || out != "it's \"quoted\"\n42\nred\n" {
		t.Errorf("rewritten %q: exit %d, output %q", rewritten, code, out)
	}
	reg, _ := bgtasks.Open(w.home)
	if tasks, _ := reg.List(); len(tasks) != 1 || tasks[0].Command != original {
		t.Errorf("the run was not supervised by hangdog as the original command: %+v", tasks)
	}
}

func TestSupervisedCallsCheckOftenUnlessTheUserSaidOtherwise(t *testing.T) {
	w := newWorld(t)
	prompt := func(env ...string) (time.Duration, string) {
		t.Helper()
		t0 := time.Now()
		out, code := w.run("", env, hangdog(), "run", "--claude-code", "--session", "claude-c1", "--detach-after", "60s", "--", `read -p "Name? " n`)
		// The notice starts on a line of its own, below the prompt.
		if code != 0 || !strings.Contains(out, "waiting for input") || !strings.Contains(out, "Name? \nhangdog: task ") {
			t.Fatalf("a prompt: exit %d, %q", code, out)
		}
		return time.Since(t0), out
	}
	// The default inputWaitSec (3 s) against the user's own 8 s, which wins.
	hooks, _ := prompt()
	users, out := prompt("HANGDOG_WATCHDOG_INPUTWAITSEC=8")
	if users < 7500*time.Millisecond || hooks > users-1500*time.Millisecond {
		t.Errorf("a prompt came back after %v with the hook's settings, %v with the user's inputWaitSec=8: %q", hooks, users, out)
	}
}

func TestPreToolUseCarriesTheCwdBackAndSetsTheAgentProfile(t *testing.T) {
	w := newWorld(t)
	os.Mkdir(filepath.Join(w.project, "sub"), 0o700)
	h := w.pre(preToolUse(`cd sub && echo "pager=$GIT_PAGER term=$TERM"`, nil)).HookSpecificOutput
	if h.UpdatedInput == nil {
		t.Fatal("`cd sub && cmd` was not supervised")
	}
	// Claude Code's shell keeps its cwd from call to call: the rewritten
	// call must leave it where the command ended.
	out, code := w.run("", nil, "bash", "-c", h.UpdatedInput["command"].(string)+"\npwd")
	if want := "pager=cat term=dumb\n" + filepath.Join(w.project, "sub") + "\n"; code != 0 || out != want {
		t.Errorf("exit %d, output %q, want %q", code, out, want)
	}
}

// TestPreToolUseDecidesAsClaudeCodeRules checks the permission answer for
// the original command against the user's rules, in the files Claude Code
// reads and on its command line.
func TestPreToolUseDecidesAsClaudeCodeRules(t *testing.T) {
	w := newWorld(t)
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".claude"), 0o700)
	os.MkdirAll(filepath.Join(w.project, ".claude"), 0o700)
	os.Mkdir(filepath.Join(w.project, "sub"), 0o700)
	write := func(path string, perms map[string]any) {
		b, _ := json.Marshal(map[string]any{"permissions": perms})
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(home, ".claude/settings.json"), map[string]any{"allow": []string{"Bash(echo:*)"}, "deny": []string{"Bash(rm:*)"}})
	write(filepath.Join(w.project, ".claude/settings.json"), map[string]any{"allow": []string{"Bash(npm run *)", "Bash(git push:*)"}, "ask": []string{"Bash(git push:*)"}})
	write(filepath.Join(w.project, ".claude/settings.local.json"), map[string]any{"allow": []string{"Bash(make test)"}})
	env := []string{"HOME=" + home, "CLAUDE_PROJECT_DIR=" + w.project}
	for _, tc := range []struct {
		mode, command, want string // want: allow (supervised), or "" (to Claude Code untouched)
	}{
		{"default", "echo hi", "allow"},
		{"default", "echo hi && npm run build", "allow"},
		{"default", "npm run", "allow"},
		{"default", "make test", "allow"},
		{"default", "cd sub && echo hi", "allow"},
		{"default", "timeout 5 echo hi", "allow"},
		{"default", "make test-all", ""},
		{"default", "echo hi && touch x", ""},
		{"default", "echo hi | sh", ""},
		{"default", "echo $(touch x)", ""},
		{"default", "cd /etc && echo hi", ""},
		{"default", "echoo hi", ""},
		{"default", "git push", ""},
		{"default", "rm -f x", ""},
		{"default", "echo a; rm -f x", ""},
		{"acceptEdits", "echo hi", "allow"},
		{"plan", "echo hi", ""},
		{"bypassPermissions", "touch x", "allow"},
		{"bypassPermissions", "rm -f x", ""},
		{"bypassPermissions", "git push origin", ""},
	} {
		h := w.pre(preToolUse(tc.command, map[string]any{"permission_mode": tc.mode}), env...).HookSpecificOutput
		got := h.PermissionDecision
		if (got == "allow") != (h.UpdatedInput != nil) || got != tc.want {
			t.Errorf("%s %q: decision %q, rewritten %v; want %q", tc.mode, tc.command, got, h.UpdatedInput != nil, tc.want)
		}
	}
	// The claude command line's --allowedTools / --disallowedTools count too
	// (hooks are not told them: the hook reads its claude's arguments).
	in, _ := json.Marshal(preToolUse("make lint", map[string]any{"permission_mode": "default", "cwd": w.project}))
	for _, tc := range []struct{ flags, want string }{
		{`--allowedTools "Bash(make:*)" Edit`, "allow"},
		{`--allowedTools=Bash(make:*),Edit --disallowedTools "Bash(make lint)"`, ""},
	} {
		script := fmt.Sprintf(`%q hook; true`, hangdog())
		out, _ := w.run(string(in), env, "bash", "-c", "exec -a claude bash -c '"+script+"' claude "+tc.flags)
		var got preToolUseOutput
		json.Unmarshal([]byte(out), &got)
		if got.HookSpecificOutput.PermissionDecision != tc.want {
			t.Errorf("claude %s: decision %q, want %q (%s)", tc.flags, got.HookSpecificOutput.PermissionDecision, tc.want, out)
		}
	}
	// HANGDOG_PERMISSION=allow: every call no rule denies or asks.
	if h := w.pre(preToolUse("touch x", map[string]any{"permission_mode": "default"}), append(env, "HANGDOG_PERMISSION=allow")...).HookSpecificOutput; h.PermissionDecision != "allow" {
		t.Errorf("HANGDOG_PERMISSION=allow: %+v", h)
	}
}

func TestPreToolUseLeavesShellStateCommandsAlone(t *testing.T) {
	w := newWorld(t)
	for _, in := range []map[string]any{
		preToolUse("cd sub", nil),
		preToolUse("export FOO=1", nil),
		preToolUse("hangdog bg ls", nil),
		{"session_id": "s1", "hook_event_name": "PreToolUse", "tool_name": "Bash", "permission_mode": "bypassPermissions",
			"tool_input": map[string]any{"command": "npm run dev", "run_in_background": true}},
	} {
		if h := w.pre(in).HookSpecificOutput; h.UpdatedInput != nil {
			t.Errorf("%v was rewritten: %+v", in["tool_input"], h)
		}
	}
	// Without a hangdog to run, a rewrite would break every Bash call.
	if h := w.pre(preToolUse("ls", nil), "HANGDOG_BIN="+filepath.Join(t.TempDir(), "hangdog")).HookSpecificOutput; h.UpdatedInput != nil {
		t.Errorf("rewritten to a missing hangdog: %+v", h)
	}
}

// runDetached runs a command the way a rewritten Bash call does, detached
// after a second; its task id.
func (w *world) runDetached(session, command string) string {
	w.t.Helper()
	out, code := w.run("", nil, hangdog(), "run", "--claude-code", "--session", "claude-"+session, "--detach-after", "1s", "--", command)
	m := regexp.MustCompile(`task (t\d+) was moved to the background`).FindStringSubmatch(out)
	if code != 0 || m == nil {
		w.t.Fatalf("run %q: exit %d, %q", command, code, out)
	}
	return m[1]
}

// stop runs the Stop hook: its exit status and the additional context it
// gives the model ("" for none). A Stop hook that blocks (exit 2, or
// "decision": "block") makes Claude Code 2.1.328 show the person an error
// banner; additional context reaches the model without one.
func (w *world) stop(session string, extraEnv ...string) (string, int) {
	w.t.Helper()
	b, _ := json.Marshal(map[string]any{"hook_event_name": "Stop", "session_id": session, "cwd": w.project, "stop_hook_active": false})
	out, code := w.run(string(b), extraEnv, hangdog(), "hook")
	if strings.TrimSpace(out) == "" {
		return "", code
	}
	var got struct {
		Decision           string `json:"decision"`
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || got.Decision != "" || got.HookSpecificOutput.HookEventName != "Stop" {
		w.t.Fatalf("Stop printed %q (%v): want additionalContext and no decision", out, err)
	}
	return got.HookSpecificOutput.AdditionalContext, code
}

var eventTag = regexp.MustCompile(`#\d+ Background task t\d+`)

func TestStopHookWaitsForTheSessionsOwnWorkAndTellsItOnce(t *testing.T) {
	w := newWorld(t)
	w.hook(map[string]any{"hook_event_name": "SessionStart", "session_id": "s2"})
	// Nothing of its own running: the stop is let through at once.
	w.bgRun("echo another-sessions-task")
	if out, code := w.stop("s2", "HANGDOG_STOP_WAIT=60s"); code != 0 || out != "" {
		t.Fatalf("Stop with only another session's task: exit %d, %q", code, out)
	}
	// Its own task, which ends once a marker file appears, made after the
	// Stop hook started: the hook must wait for it.
	marker := filepath.Join(w.project, "go-on")
	id := w.runDetached("s2", fmt.Sprintf("while [ ! -e %s ]; do sleep 0.05; done; echo late-result; exit 1", marker))
	time.AfterFunc(1500*time.Millisecond, func() { os.WriteFile(marker, nil, 0o600) })
	t0 := time.Now()
	out, code := w.stop("s2", "HANGDOG_STOP_WAIT=60s")
	if took := time.Since(t0); code != 0 || took < time.Second || !strings.Contains(out, "Background task "+id) ||
		!strings.Contains(out, "exit 1") || !strings.Contains(out, "late-result") || strings.Contains(out, "another-sessions-task") {
		t.Fatalf("Stop should have waited %v for %s and told it (exit 0, additional context): exit %d %q", took, id, code, out)
	}
	if n := len(eventTag.FindAllString(out, -1)); n != 1 {
		t.Errorf("%d events told, want 1: %s", n, out)
	}
	if out, code := w.stop("s2"); code != 0 || out != "" {
		t.Errorf("a second Stop repeated the news: exit %d %q", code, out)
	}
}

func TestNewsOfTheSessionsTasksReachesTheNextCall(t *testing.T) {
	w := newWorld(t)
	w.hook(map[string]any{"hook_event_name": "SessionStart", "session_id": "s1"})
	id := w.runDetached("s1", "sleep 1.5; echo built")
	w.endEvent(id)
	// A call the hook leaves to Claude Code gets it as context...
	h := w.pre(preToolUse("cd sub", nil)).HookSpecificOutput
	if !strings.Contains(h.AdditionalContext, "Background task "+id) || !strings.Contains(h.AdditionalContext, "built") {
		t.Errorf("additionalContext %q lacks the end of %s", h.AdditionalContext, id)
	}
	// ... once.
	id2 := w.runDetached("s1", "sleep 1.5; echo built-again")
	w.endEvent(id2)
	h = w.pre(preToolUse("echo next", nil)).HookSpecificOutput
	out, _ := w.run("", nil, "bash", "-c", h.UpdatedInput["command"].(string))
	if !strings.Contains(out, "Background task "+id2) || strings.Contains(out, "Background task "+id+" ") || !strings.HasSuffix(out, "next\n") {
		t.Errorf("a supervised call should start with the news of %s only: %q", id2, out)
	}
}

func TestHarnessExampleReportsRunsAndBackgroundNewsOnce(t *testing.T) {
	needPython(t)
	w := newWorld(t)
	out, code := w.run("", nil, "python3", filepath.Join(here, "harness-example.py"), `printf '\033[32mgreen\033[0m\n'; exit 2`)
	if code != 0 {
		t.Fatalf("harness exited %d: %s", code, out)
	}
	var r struct {
		Text    string `json:"text"`
		IsError bool   `json:"is_error"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(r.Text, "exit 2 (task t1)\ngreen\n") || r.IsError {
		t.Errorf("run result: %+v", r)
	}

	out, code = w.run("", nil, "python3", filepath.Join(here, "harness-example.py"), "--background", "--drain", "60", "echo bg-output; exit 7")
	if code != 0 {
		t.Fatalf("harness exited %d: %s", code, out)
	}
	if n := len(eventTag.FindAllString(out, -1)); n != 1 || !strings.Contains(out, "finished: exit 7") || !strings.Contains(out, "bg-output") {
		t.Errorf("want the background task's end reported exactly once, got %d: %s", n, out)
	}
}

// TestMCPConfigSnippetsStartAWorkingServer starts hangdog the way each
// client config says and lists its tools with a real MCP client.
func TestMCPConfigSnippetsStartAWorkingServer(t *testing.T) {
	w := newWorld(t)
	type server struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	servers := map[string]server{}
	for _, f := range []string{"mcp-config/claude-code.mcp.json", "mcp-config/mcp-servers.json"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var cfg struct {
			MCPServers map[string]server `json:"mcpServers"`
		}
		if err := json.Unmarshal(b, &cfg); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		servers[f] = cfg.MCPServers["hangdog"]
	}
	if _, err := exec.LookPath("python3"); err == nil {
		out, code := w.run("", nil, "python3", "-c", `import json,sys,tomllib; s=tomllib.load(open(sys.argv[1],"rb"))["mcp_servers"]["hangdog"]; print(json.dumps(s))`,
			filepath.Join(here, "mcp-config/codex-config.toml"))
		var s server
		if code != 0 || json.Unmarshal([]byte(out), &s) != nil {
			t.Fatalf("codex-config.toml does not parse: %s", out)
		}
		servers["mcp-config/codex-config.toml"] = s
	}
	for name, s := range servers {
		if s.Command == "" {
			t.Errorf("%s: no hangdog server", name)
			continue
		}
		path, err := exec.LookPath(s.Command)
		if err != nil || filepath.Dir(path) != binDir {
			path = filepath.Join(binDir, s.Command)
		}
		c := exec.Command(path, s.Args...)
		c.Env, c.Dir = w.env, w.project
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "config-test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: c}, nil)
		if err != nil {
			cancel()
			t.Errorf("%s: connect: %v", name, err)
			continue
		}
		res, err := cs.ListTools(ctx, nil)
		if err != nil || len(res.Tools) < 7 {
			t.Errorf("%s: tools/list: %v %v", name, err, res)
		}
		cs.Close()
		cancel()
	}
}

func TestClaudeCodeSettingsSnippetWiresTheHook(t *testing.T) {
	b, err := os.ReadFile("claude-code/settings.json")
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type    string `json:"type"`
				Command string `json:"command"`
				Timeout int    `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("settings.json: %v", err)
	}
	matchers := map[string]string{"SessionStart": "", "PreToolUse": "Bash|WebFetch|WebSearch|Task|Agent", "PostToolUse": "WebFetch|WebSearch|Task|Agent", "SessionEnd": "", "Stop": ""}
	for event, matcher := range matchers {
		groups := s.Hooks[event]
		if len(groups) != 1 || len(groups[0].Hooks) != 1 || groups[0].Hooks[0].Command != "hangdog hook" {
			t.Errorf("%s does not run `hangdog hook`: %+v", event, groups)
			continue
		}
		if groups[0].Matcher != matcher {
			t.Errorf("%s matcher %q, want %q", event, groups[0].Matcher, matcher)
		}
		// The Stop hook waits up to HANGDOG_STOP_WAIT (20 s unless set):
		// Claude Code must let it.
		if h := groups[0].Hooks[0]; event == "Stop" && h.Timeout <= 20 {
			t.Errorf("Stop hook timeout %ds does not cover its 20 s wait", h.Timeout)
		}
	}
}

// A built-in tool (WebFetch, a subagent) cannot be stopped by a hook; the
// hooks time it, and one that took over a minute is named in the next
// context. A quick one adds nothing.
func TestSlowBuiltinToolIsNotedInTheNextContext(t *testing.T) {
	w := newWorld(t)
	call := func(event, id string) map[string]any {
		return map[string]any{"hook_event_name": event, "session_id": "s-web", "tool_name": "WebFetch", "tool_use_id": id,
			"tool_input": map[string]any{"url": "https://example.com/slow", "prompt": "summarise"}, "tool_response": "page"}
	}
	for _, id := range []string{"quick", "slow"} {
		if out := w.hook(call("PreToolUse", id)); strings.TrimSpace(out) != "" {
			t.Errorf("PreToolUse of WebFetch answered %q, want nothing (the call goes on untouched)", out)
		}
	}
	// The slow call started two minutes ago, as its record says.
	path := filepath.Join(w.home, "claude-sessions", "s-web", "session.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rec map[string]any
	json.Unmarshal(b, &rec)
	started, _ := rec["started"].(map[string]any)
	if started["slow"] == nil || started["quick"] == nil {
		t.Fatalf("the session record %s holds no start of the calls", b)
	}
	started["slow"] = time.Now().Add(-2 * time.Minute).Format(time.RFC3339Nano)
	b, _ = json.Marshal(rec)
	os.WriteFile(path, b, 0o600)

	if out := w.hook(call("PostToolUse", "quick")); strings.TrimSpace(out) != "" {
		t.Errorf("PostToolUse of a quick WebFetch answered %q, want nothing", out)
	}
	var got struct {
		Out struct {
			Event   string `json:"hookEventName"`
			Context string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	out := w.hook(call("PostToolUse", "slow"))
	if err := json.Unmarshal([]byte(out), &got); err != nil || got.Out.Event != "PostToolUse" ||
		!strings.Contains(got.Out.Context, "WebFetch https://example.com/slow call took 2m0s") {
		t.Errorf("PostToolUse of a slow WebFetch answered %q, want additionalContext naming it and how long it took", out)
	}
	b, _ = os.ReadFile(path)
	if strings.Contains(string(b), `"slow"`) || strings.Contains(string(b), `"quick"`) {
		t.Errorf("the ended calls' starts stay in the record: %s", b)
	}
}

// TestSessionEndStopsTheSessionsTasks: a task the hook ran for a session and
// moved to the background belongs to that session; SessionEnd stops it and
// leaves another session's alone.
func TestSessionEndStopsTheSessionsTasks(t *testing.T) {
	w := newWorld(t)
	start := func(session string) string {
		t.Helper()
		out, code := w.run("", nil, hangdog(), "run", "--claude-code", "--session", "claude-"+session, "--detach-after", "1s", "--", "echo up; sleep 60")
		m := regexp.MustCompile(`task (t\d+) was moved to the background`).FindStringSubmatch(out)
		if code != 0 || m == nil {
			t.Fatalf("run for session %s: exit %d, %q", session, code, out)
		}
		return m[1]
	}
	mine, theirs := start("s-end"), start("s-other")
	reg, err := bgtasks.Open(w.home)
	if err != nil {
		t.Fatal(err)
	}
	state := func(id string) bgtasks.State {
		task, err := reg.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		return task.State()
	}
	w.hook(map[string]any{"hook_event_name": "SessionEnd", "session_id": "s-end", "cwd": w.project, "reason": "exit"})
	if st := state(mine); !st.Ended() {
		t.Errorf("the ended session's task is %s", st)
	}
	if st := state(theirs); st != bgtasks.Running {
		t.Errorf("another session's task is %s after this one ended", st)
	}
	w.hook(map[string]any{"hook_event_name": "SessionEnd", "session_id": "s-other", "cwd": w.project, "reason": "exit"})
	if st := state(theirs); !st.Ended() {
		t.Errorf("the second session's task is %s after its end", st)
	}
}

// An MCP server started by Claude Code (its session id in the environment)
// is the session's: the Stop hook waits for the background task it started
// and tells its end, and news the server already put in a result is not
// told again, with no hook on the MCP bash calls.
func TestMCPServerOfAClaudeCodeSessionSharesItWithTheHooks(t *testing.T) {
	w := newWorld(t)
	w.hook(map[string]any{"hook_event_name": "SessionStart", "session_id": "m2"})
	c := exec.Command(hangdog(), "mcp")
	c.Env, c.Dir = append(w.env, "CLAUDE_CODE_SESSION_ID=m2"), w.project
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "session-test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: c}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	bash := func(args map[string]any) string {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "bash", Arguments: args})
		if err != nil || res.IsError || len(res.Content) == 0 {
			t.Fatalf("bash %v: %v %+v", args, err, res)
		}
		return res.Content[0].(*mcp.TextContent).Text
	}
	taskID := regexp.MustCompile(`task (t\d+)`)
	// A background task that ends once the call that started it is
	// answered: its end is told by the server's next result.
	go1 := filepath.Join(w.project, "go1")
	first := taskID.FindStringSubmatch(bash(map[string]any{"command": fmt.Sprintf("while [ ! -e %s ]; do sleep 0.05; done; echo first-done", go1), "run_in_background": true}))
	if first == nil {
		t.Fatal("no task id for the first background task")
	}
	if err := os.WriteFile(go1, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	w.endEvent(first[1])
	if out := bash(map[string]any{"command": "true"}); !strings.Contains(out, "Background task "+first[1]) {
		t.Fatalf("the server's next result did not tell %s's end: %q", first[1], out)
	}
	// A background task that ends once a marker appears, after Stop began:
	// the hook waits for it, tells it, and not the one the server told.
	marker := filepath.Join(w.project, "go-on")
	second := taskID.FindStringSubmatch(bash(map[string]any{"command": fmt.Sprintf("while [ ! -e %s ]; do sleep 0.05; done; echo second-done", marker), "run_in_background": true}))
	if second == nil {
		t.Fatal("no task id for the second background task")
	}
	time.AfterFunc(1500*time.Millisecond, func() { os.WriteFile(marker, nil, 0o600) })
	t0 := time.Now()
	out, code := w.stop("m2", "HANGDOG_STOP_WAIT=60s")
	if took := time.Since(t0); code != 0 || took < time.Second || !strings.Contains(out, "Background task "+second[1]) || !strings.Contains(out, "second-done") {
		t.Fatalf("Stop should have waited %v for the MCP task %s and told it: exit %d %q", took, second[1], code, out)
	}
	if strings.Contains(out, "Background task "+first[1]) {
		t.Errorf("Stop told again what the server had told: %q", out)
	}
	if out := bash(map[string]any{"command": "true"}); strings.Contains(out, "Background task "+second[1]) {
		t.Errorf("the server told again what the Stop hook had told: %q", out)
	}
}
