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
	"slices"
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
		t.Skip("python3 not installed; the hook and harness recipes are Python scripts")
	}
}

// world is one isolated hangdog home plus a project directory.
type world struct {
	t       *testing.T
	home    string
	project string
	env     []string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	// Unix socket paths are limited to 108 bytes: keep the home short.
	root, err := os.MkdirTemp("", "hd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	w := &world{t: t, home: filepath.Join(root, "h"), project: filepath.Join(root, "p")}
	if err := os.Mkdir(w.project, 0o700); err != nil {
		t.Fatal(err)
	}
	w.env = append(os.Environ(),
		"HANGDOG_HOME="+w.home, "XDG_CONFIG_HOME="+filepath.Join(root, "c"),
		"HANGDOG_BIN="+filepath.Join(binDir, "hangdog"),
		"PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"),
		"HANGDOG_PERMISSION=", "HANGDOG_STOP_WAIT=")
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
	out, code := w.run(string(b), extraEnv, "python3", filepath.Join(here, "claude-code/hangdog-hook.py"))
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
		"session_id": "s1", "hook_event_name": "PreToolUse", "tool_name": "Bash", "permission_mode": "default",
		"tool_input": map[string]any{"command": command, "description": "test run", "timeout": 120000},
	}
	for k, v := range extra {
		in[k] = v
	}
	return in
}

func TestPreToolUseRoutesBashThroughHangdogRun(t *testing.T) {
	needPython(t)
	w := newWorld(t)
	original := `printf '%s\n' "it's \"quoted\""; echo $((6*7)); exit 3`
	var got preToolUseOutput
	if err := json.Unmarshal([]byte(w.hook(preToolUse(original, nil))), &got); err != nil {
		t.Fatal(err)
	}
	h := got.HookSpecificOutput
	if h.HookEventName != "PreToolUse" || h.UpdatedInput == nil {
		t.Fatalf("no rewrite: %+v", h)
	}
	if h.UpdatedInput["description"] != "test run" || h.UpdatedInput["timeout"] != float64(120000) {
		t.Errorf("other Bash inputs not kept: %v", h.UpdatedInput)
	}
	if h.PermissionDecision != "ask" {
		t.Errorf("default permission mode: decision %q, want ask (never widen what the user allowed)", h.PermissionDecision)
	}
	// Run the rewritten command as Claude Code would: it must do exactly
	// what the original did, under a supervisor.
	rewritten := h.UpdatedInput["command"].(string)
	out, code := w.run("", nil, "bash", "-c", rewritten)
	if code != 3 || out != "it's \"quoted\"\n42\n" {
		t.Errorf("rewritten %q: exit %d, output %q", rewritten, code, out)
	}
	reg, _ := bgtasks.Open(w.home)
	if tasks, _ := reg.List(); len(tasks) != 1 || tasks[0].Command != original {
		t.Errorf("the run was not supervised by hangdog as the original command: %+v", tasks)
	}
}

func TestPreToolUsePermissionFollowsTheSessionMode(t *testing.T) {
	needPython(t)
	w := newWorld(t)
	for _, tc := range []struct {
		mode, env, want string
	}{
		{"bypassPermissions", "", "allow"},
		{"acceptEdits", "", "ask"},
		{"default", "HANGDOG_PERMISSION=allow", "allow"},
		{"default", "HANGDOG_PERMISSION=none", ""},
	} {
		var got preToolUseOutput
		json.Unmarshal([]byte(w.hook(preToolUse("ls", map[string]any{"permission_mode": tc.mode}), tc.env)), &got)
		if got.HookSpecificOutput.UpdatedInput == nil || got.HookSpecificOutput.PermissionDecision != tc.want {
			t.Errorf("mode %s %s: decision %q, want %q", tc.mode, tc.env, got.HookSpecificOutput.PermissionDecision, tc.want)
		}
	}
}

func TestPreToolUseLeavesShellStateCommandsAlone(t *testing.T) {
	needPython(t)
	w := newWorld(t)
	for _, in := range []map[string]any{
		preToolUse("cd sub && ls", nil),
		preToolUse("export FOO=1", nil),
		preToolUse("hangdog bg ls", nil),
		{"session_id": "s1", "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": "npm run dev", "run_in_background": true}},
	} {
		if out := w.hook(in); strings.Contains(out, "updatedInput") {
			t.Errorf("%v was rewritten: %s", in["tool_input"], out)
		}
	}
	// Without a hangdog to run, a rewrite would break every Bash call.
	if out := w.hook(preToolUse("ls", nil), "HANGDOG_BIN="+filepath.Join(t.TempDir(), "hangdog")); strings.Contains(out, "updatedInput") {
		t.Errorf("rewritten to a missing hangdog: %s", out)
	}
}

var eventTag = regexp.MustCompile(`#\d+ Background task t\d+`)

func TestStopHookWakesTheAgentOnceWhenBackgroundWorkFinished(t *testing.T) {
	needPython(t)
	w := newWorld(t)
	session := map[string]any{"session_id": "s2", "cwd": w.project}
	w.hook(map[string]any{"hook_event_name": "SessionStart", "session_id": "s2", "source": "startup"})
	id, ev := w.bgRun("echo tests-done; exit 1")

	stop := map[string]any{"hook_event_name": "Stop", "stop_hook_active": false}
	for k, v := range session {
		stop[k] = v
	}
	var got struct{ Decision, Reason string }
	if err := json.Unmarshal([]byte(w.hook(stop)), &got); err != nil {
		t.Fatalf("Stop with news should print a decision: %v", err)
	}
	want := fmt.Sprintf("#%d Background task %s", ev.Seq, id)
	if got.Decision != "block" || !strings.Contains(got.Reason, want) || !strings.Contains(got.Reason, "exit 1") || !strings.Contains(got.Reason, "tests-done") {
		t.Fatalf("Stop did not keep the agent going with the news: %+v", got)
	}
	stop["stop_hook_active"] = true
	if out := w.hook(stop); strings.TrimSpace(out) != "" {
		t.Errorf("second Stop repeated the news: %s", out)
	}
}

func TestStopHookWaitsForRunningProjectWork(t *testing.T) {
	needPython(t)
	w := newWorld(t)
	sid := fmt.Sprintf("wait-%d-%d", os.Getpid(), time.Now().UnixNano())
	w.hook(map[string]any{"hook_event_name": "SessionStart", "session_id": sid})
	// Nothing running: even with a wait configured, the stop is let through.
	if out := w.hook(map[string]any{"hook_event_name": "Stop", "session_id": sid, "cwd": w.project}, "HANGDOG_STOP_WAIT=10m"); strings.TrimSpace(out) != "" {
		t.Fatalf("Stop with nothing running: %s", out)
	}
	// A task that ends once its marker file appears; the marker is made
	// only when the hook is seen waiting for events, so the hook must have
	// waited for the task rather than found its end already logged.
	marker := filepath.Join(w.project, "go-on")
	out, _ := w.run("", nil, filepath.Join(binDir, "hangdog"), "bg", "run", "--", fmt.Sprintf("while [ ! -e %s ]; do sleep 0.05; done; echo late-result", marker))
	id := strings.TrimSpace(out)
	released := make(chan error, 1)
	go func() {
		deadline := time.Now().Add(60 * time.Second)
		for !waitingForEvents("claude-" + sid) {
			if time.Now().After(deadline) {
				released <- fmt.Errorf("the Stop hook never waited for events")
				os.WriteFile(marker, nil, 0o600)
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		released <- os.WriteFile(marker, nil, 0o600)
	}()
	got := w.hook(map[string]any{"hook_event_name": "Stop", "session_id": sid, "cwd": w.project}, "HANGDOG_STOP_WAIT=60s")
	if err := <-released; err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, `"decision": "block"`) || !strings.Contains(got, id) || !strings.Contains(got, "late-result") {
		t.Fatalf("Stop should have waited for %s and woken the agent: %s", id, got)
	}
}

// waitingForEvents reports whether a `hangdog events --consumer NAME ...
// --wait` process is running.
func waitingForEvents(consumer string) bool {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		args := strings.Split(string(b), "\x00")
		if slices.Contains(args, "events") && slices.Contains(args, consumer) && slices.Contains(args, "--wait") {
			return true
		}
	}
	return false
}

func TestPreToolUseAddsBackgroundNewsAsContext(t *testing.T) {
	needPython(t)
	w := newWorld(t)
	w.hook(map[string]any{"hook_event_name": "SessionStart", "session_id": "s1"})
	id, ev := w.bgRun("echo built")
	var got preToolUseOutput
	json.Unmarshal([]byte(w.hook(preToolUse("ls", nil))), &got)
	if want := fmt.Sprintf("#%d Background task %s", ev.Seq, id); !strings.Contains(got.HookSpecificOutput.AdditionalContext, want) {
		t.Errorf("additionalContext %q lacks %q", got.HookSpecificOutput.AdditionalContext, want)
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
	for _, event := range []string{"SessionStart", "PreToolUse", "Stop"} {
		groups := s.Hooks[event]
		if len(groups) != 1 || len(groups[0].Hooks) != 1 || !strings.Contains(groups[0].Hooks[0].Command, "hangdog-hook.py") {
			t.Errorf("%s does not run hangdog-hook.py: %+v", event, groups)
			continue
		}
		h := groups[0].Hooks[0]
		if event == "PreToolUse" && groups[0].Matcher != "Bash" {
			t.Errorf("PreToolUse matcher %q, want Bash", groups[0].Matcher)
		}
		if event == "Stop" {
			// The hook may wait HANGDOG_STOP_WAIT; Claude Code must let it.
			m := regexp.MustCompile(`HANGDOG_STOP_WAIT=(\d+)m`).FindStringSubmatch(h.Command)
			if m == nil {
				t.Errorf("Stop hook sets no wait: %q", h.Command)
			} else if wait := atoi(m[1]) * 60; h.Timeout <= wait {
				t.Errorf("Stop hook timeout %ds does not cover its %ds wait", h.Timeout, wait)
			}
		}
	}
}

func atoi(s string) int {
	n := 0
	fmt.Sscan(s, &n)
	return n
}
