//go:build linux

package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/internal/hiddenarg"
	"github.com/hangdog/hangdog/internal/testbin"
	"github.com/hangdog/hangdog/taskctl"
)

// hangdogBin is the real binary, built once: the MCP server and every
// supervisor it starts are this binary, driven as a harness drives it.
var hangdogBin string

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == hiddenarg.Supervise {
		// Started as a supervisor: this binary is none, and running the
		// tests here would start more of them.
		fmt.Fprintln(os.Stderr, "mcpserver.test is not a supervisor; set taskctl.Executable")
		os.Exit(2)
	}
	dir, err := os.MkdirTemp("", "hdmcp")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if hangdogBin, err = testbin.Build(dir); err != nil {
		os.RemoveAll(dir)
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	// Servers run in this process (stdio_test.go) start supervisors too:
	// their spare as soon as they run.
	taskctl.Executable = testbin.Supervisor(hangdogBin)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// world is an isolated hangdog home and config for one test.
type world struct {
	t    testing.TB
	home string
	cfg  string
	dir  string
	// runtime is the servers' $XDG_RUNTIME_DIR, in memory, so that the
	// session files of a server a test kills go with the test ("" where
	// there is no /dev/shm).
	runtime string

	extraEnv []string // for the next command only
}

func newWorld(t testing.TB) *world {
	t.Helper()
	// Unix socket paths are limited to 108 bytes: keep the home short.
	root, err := os.MkdirTemp("", "hd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	w := &world{t: t, home: filepath.Join(root, "h"), cfg: filepath.Join(root, "c"), dir: filepath.Join(root, "w")}
	if err := os.Mkdir(w.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if run, err := os.MkdirTemp("/dev/shm", "hd"); err == nil {
		t.Cleanup(func() { os.RemoveAll(run) })
		w.runtime = run
	}
	return w
}

func (w *world) environ() []string {
	env := append(os.Environ(), "HANGDOG_HOME="+w.home, "XDG_CONFIG_HOME="+w.cfg)
	if w.runtime != "" {
		env = append(env, "XDG_RUNTIME_DIR="+w.runtime)
	}
	return env
}

func (w *world) command(args ...string) *exec.Cmd {
	c := exec.Command(hangdogBin, args...)
	c.Env = w.environ()
	c.Env = append(c.Env, w.extraEnv...)
	c.Dir = w.dir
	return c
}

func (w *world) registry() *bgtasks.Registry {
	w.t.Helper()
	reg, err := bgtasks.Open(w.home)
	if err != nil {
		w.t.Fatal(err)
	}
	return reg
}

// connect starts `hangdog mcp` and connects the SDK's client to it over its
// stdin and stdout.
func (w *world) connect(args ...string) *mcp.ClientSession {
	w.t.Helper()
	return w.connectWith(nil, args...)
}

// connectWith is connect with extra environment for the server.
func (w *world) connectWith(env []string, args ...string) *mcp.ClientSession {
	w.t.Helper()
	return w.connectClient(nil, env, args...)
}

// connectClient is connectWith with the client's options (handlers for
// what the server sends on its own).
func (w *world) connectClient(opts *mcp.ClientOptions, env []string, args ...string) *mcp.ClientSession {
	w.t.Helper()
	w.extraEnv = env
	defer func() { w.extraEnv = nil }()
	client := mcp.NewClient(&mcp.Implementation{Name: "hangdog-test", Version: "1"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if !slices.Contains(args, "--structured=false") {
		// Every call's structuredContent is checked against its schema.
		args = append([]string{"--structured"}, args...)
	}
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: w.command(append([]string{"mcp"}, args...)...)}, nil)
	if err != nil {
		w.t.Fatalf("connect to hangdog mcp: %v", err)
	}
	w.t.Cleanup(func() { cs.Close() })
	return cs
}

// reply is a tool result split the way a model reads it: notifications
// first (if any), then the result text; and the structuredContent a
// harness reads.
type reply struct {
	notice  string
	text    string
	isError bool
	data    map[string]any
}

func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) reply {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", tool, args, err)
	}
	r := toReply(t, res)
	if _, plain := plainSessions.Load(cs); !plain {
		r.data = checkStructured(t, cs, tool, res)
	}
	return r
}

// plainSessions are sessions started with --structured=false.
var plainSessions sync.Map

// By default a result is text only, as Claude Code and Codex show the
// model a result's structuredContent instead of its text when it has one.
func TestResultsAreTextOnlyUnlessStructuredIsAsked(t *testing.T) {
	w := newWorld(t)
	cs := w.connect("--structured=false")
	plainSessions.Store(cs, true)
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if tl.OutputSchema != nil {
			t.Errorf("%s has an outputSchema without --structured", tl.Name)
		}
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "exit 2"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.StructuredContent != nil || !res.IsError || !strings.HasPrefix(toReply(t, res).text, "Exit 2 after") {
		t.Errorf("want a text-only error result for exit 2: %+v", res)
	}
}

// outputSchemas are the tools' outputSchemas as each session listed them.
var outputSchemas sync.Map // *mcp.ClientSession → map[string]*jsonschema.Resolved

// checkStructured checks that every result carries structuredContent valid
// under the outputSchema its tool lists, as a client that checks it would,
// and returns it.
func checkStructured(t *testing.T, cs *mcp.ClientSession, tool string, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	m, ok := outputSchemas.Load(cs)
	if !ok {
		tools, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatalf("list tools: %v", err)
		}
		schemas := map[string]*jsonschema.Resolved{}
		for _, tl := range tools.Tools {
			if tl.OutputSchema == nil {
				t.Fatalf("tool %s has no outputSchema", tl.Name)
			}
			b, _ := json.Marshal(tl.OutputSchema)
			var sc jsonschema.Schema
			if err := json.Unmarshal(b, &sc); err != nil {
				t.Fatalf("outputSchema of %s: %v", tl.Name, err)
			}
			rs, err := sc.Resolve(nil)
			if err != nil {
				t.Fatalf("resolve outputSchema of %s: %v", tl.Name, err)
			}
			schemas[tl.Name] = rs
		}
		m, _ = outputSchemas.LoadOrStore(cs, schemas)
	}
	rs := m.(map[string]*jsonschema.Resolved)[tool]
	if res.StructuredContent == nil {
		t.Fatalf("%s: no structuredContent", tool)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var data map[string]any
	if err := json.Unmarshal(b, &data); err != nil {
		t.Fatalf("%s: structuredContent is not an object: %s", tool, b)
	}
	if err := rs.Validate(data); err != nil {
		t.Fatalf("%s: structuredContent %s does not validate against its outputSchema: %v", tool, b, err)
	}
	return data
}

func toReply(t *testing.T, res *mcp.CallToolResult) reply {
	t.Helper()
	var texts []string
	for _, c := range res.Content {
		tc, ok := c.(*mcp.TextContent)
		if !ok {
			t.Fatalf("content %T, want text", c)
		}
		texts = append(texts, tc.Text)
	}
	switch len(texts) {
	case 1:
		return reply{text: texts[0], isError: res.IsError}
	case 2:
		return reply{notice: texts[0], text: texts[1], isError: res.IsError}
	}
	t.Fatalf("%d content items, want 1 or 2: %q", len(texts), texts)
	return reply{}
}

var taskIDRe = regexp.MustCompile(`\bt[0-9]+\b`)

func taskIDIn(t *testing.T, text string) string {
	t.Helper()
	id := taskIDRe.FindString(text)
	if id == "" {
		t.Fatalf("no task id in %q", text)
	}
	return id
}

// waitFor polls until cond holds; the deadline only keeps a broken build
// from hanging the suite.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// endEvent waits until the event log says task id ended, and returns it.
func (w *world) endEvent(id string) bgtasks.Event {
	w.t.Helper()
	reg := w.registry()
	var found bgtasks.Event
	waitFor(w.t, "the end event of "+id, func() bool {
		evs, err := reg.Events(0)
		if err != nil {
			w.t.Fatal(err)
		}
		for _, e := range evs {
			if e.TaskID == id && (e.Kind == bgtasks.EventExited || e.Kind == bgtasks.EventKilled) {
				found = e
				return true
			}
		}
		return false
	})
	return found
}

// waitOutput waits until task id's output holds text. A task is recorded
// running once its command starts, which on a loaded machine can be before
// the command has printed anything.
func (w *world) waitOutput(id, text string) {
	w.t.Helper()
	reg := w.registry()
	waitFor(w.t, fmt.Sprintf("%q in the output of %s", text, id), func() bool {
		tail, _, err := reg.TailOutput(id, 64<<10)
		return err == nil && strings.Contains(string(tail), text)
	})
}

// runningTask waits for a running task of this world and returns its id.
func (w *world) runningTask() string {
	w.t.Helper()
	reg := w.registry()
	var id string
	waitFor(w.t, "a running task", func() bool {
		tasks, err := reg.List()
		if err != nil {
			w.t.Fatal(err)
		}
		for _, t := range tasks {
			if t.State() == bgtasks.Running {
				id = t.ID
				return true
			}
		}
		return false
	})
	return id
}

func TestToolsAndInstructionsDescribeWhatHangdogDoes(t *testing.T) {
	w := newWorld(t)
	cs := w.connect()
	init := cs.InitializeResult()
	if !strings.Contains(init.Instructions, "bg_send") || !strings.Contains(init.Instructions, "re-run") {
		t.Errorf("instructions do not explain prompts and kills: %q", init.Instructions)
	}
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"bash":           {"command", "cwd", "timeout_seconds", "run_in_background"},
		"bg_tasks":       {},
		"bg_logs":        {"id", "tail_lines", "since_offset"},
		"bg_send":        {"id", "text"},
		"bg_wait":        {"id", "timeout_seconds"},
		"bg_kill":        {"id"},
		"bg_detach":      {"reason"},
		"approve_create": {"question", "details", "options", "expires_at"},
	}
	got := map[string]bool{}
	for _, tool := range res.Tools {
		got[tool.Name] = true
		if len(tool.Description) < 60 {
			t.Errorf("%s: description too thin for a model: %q", tool.Name, tool.Description)
		}
		schema, _ := json.Marshal(tool.InputSchema)
		var s struct {
			Properties map[string]struct {
				Description string `json:"description"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(schema, &s); err != nil {
			t.Fatal(err)
		}
		for _, p := range want[tool.Name] {
			if s.Properties[p].Description == "" {
				t.Errorf("%s: property %q missing or undescribed in %s", tool.Name, p, schema)
			}
		}
		// A client decides from these which calls need the user's consent.
		a := tool.Annotations
		readOnly := tool.Name == "bg_tasks" || tool.Name == "bg_logs" || tool.Name == "bg_wait" || tool.Name == "watch_list"
		destructive := tool.Name == "bash" || tool.Name == "bg_kill" || tool.Name == "bg_send" || tool.Name == "watch_delete"
		if a == nil || a.ReadOnlyHint != readOnly || (!readOnly && (a.DestructiveHint == nil || *a.DestructiveHint != destructive)) {
			t.Errorf("%s: annotations %+v, want readOnly %v, destructive %v", tool.Name, a, readOnly, destructive)
		}
		out, _ := json.Marshal(tool.OutputSchema)
		fields := []string{"status", "task_id"}
		if strings.HasPrefix(tool.Name, "watch_") {
			fields = []string{"result"} // a watcher is no task: its text, as one field
		}
		if tool.Name == "approve_create" {
			fields = []string{"result", "url", "expires_at", "reachable_from_outside"}
		}
		for _, field := range fields {
			if tool.Name != "bg_tasks" && !strings.Contains(string(out), `"`+field+`"`) {
				t.Errorf("%s: outputSchema lacks %q: %s", tool.Name, field, out)
			}
		}
	}
	for name := range want {
		if !got[name] {
			t.Errorf("tool %s not listed", name)
		}
	}
}

func TestQuickCommandReturnsPlainOutputAndExitCode(t *testing.T) {
	w := newWorld(t)
	cs := w.connect()
	r := call(t, cs, "bash", map[string]any{"command": `printf '\033[1;31mred\033[0m\n50%%\r100%%\n'; pwd; exit 3`})
	if !r.isError {
		t.Fatalf("a non-zero exit is a failed call (isError), with its output: %+v", r)
	}
	if r.data["status"] != "exited" || r.data["exit_code"] != 3.0 || r.data["task_id"] != taskIDIn(t, r.text) ||
		!strings.Contains(fmt.Sprint(r.data["output"]), "100%\n") || r.data["output_path"] == nil {
		t.Errorf("structuredContent does not say exited 3 with its output: %v", r.data)
	}
	if ok := call(t, cs, "bash", map[string]any{"command": "echo fine"}); ok.isError || ok.data["exit_code"] != 0.0 {
		t.Errorf("exit 0 should not be an error: %+v", ok)
	}
	if !strings.HasPrefix(r.text, "Exit 3 after") {
		t.Errorf("first line does not give the exit code: %q", r.text)
	}
	for _, want := range []string{"red\n", "100%\n", w.dir} {
		if !strings.Contains(r.text, want) {
			t.Errorf("output lacks %q: %q", want, r.text)
		}
	}
	if strings.Contains(r.text, "\x1b") || strings.Contains(r.text, "50%") {
		t.Errorf("escape codes or overwritten progress left in: %q", r.text)
	}
	r = call(t, cs, "bash", map[string]any{"command": "pwd", "cwd": "/"})
	if !strings.Contains(r.text, "\n/") {
		t.Errorf("cwd not honoured: %q", r.text)
	}
	r = call(t, cs, "bash", map[string]any{"command": "true", "cwd": "/no/such/dir"})
	if !r.isError || !strings.Contains(r.text, "/no/such/dir") {
		t.Errorf("bad cwd should be a tool error naming it: %+v", r)
	}
}

// projectConfig writes the project's .hangdog.yaml, which the server's
// bash calls load as `hangdog run` would.
func (w *world) projectConfig(yaml string) {
	w.t.Helper()
	if err := os.WriteFile(filepath.Join(w.dir, ".hangdog.yaml"), []byte(yaml), 0o600); err != nil {
		w.t.Fatal(err)
	}
}

func TestPromptComesBackDetachedThenSendAndWait(t *testing.T) {
	w := newWorld(t)
	// Nobody can type into an agent's command: the watchdog hands a prompt
	// back after inputWaitSec (shortened here) without any timeout.
	w.projectConfig("watchdog:\n  inputWaitSec: 1\n")
	cs := w.connect()
	r := call(t, cs, "bash", map[string]any{"command": `echo preparing; read -p 'Overwrite? [y/N] ' a; echo "answered $a"; exit 3`})
	if r.isError || !strings.Contains(r.text, "still running") || !strings.Contains(r.text, "waiting for input") {
		t.Fatalf("want a detach notice for a prompt, got %+v", r)
	}
	if r.data["status"] != "detached" || r.data["wait"] != "prompt" {
		t.Errorf("structuredContent should say detached waiting at a prompt: %v", r.data)
	}
	id := taskIDIn(t, r.text)
	for _, want := range []string{"Overwrite? [y/N]", "preparing", "bg_send", "ANSWER", "bg_wait", "bg_kill"} {
		if !strings.Contains(r.text, want) {
			t.Errorf("detach notice lacks %q: %q", want, r.text)
		}
	}
	r = call(t, cs, "bg_send", map[string]any{"id": id, "text": "y\n"})
	if r.isError {
		t.Fatalf("bg_send: %+v", r)
	}
	r = call(t, cs, "bg_wait", map[string]any{"id": id, "timeout_seconds": 30})
	if !r.isError || !strings.Contains(r.text, "exit 3") || !strings.Contains(r.text, "answered y") || r.data["exit_code"] != 3.0 {
		t.Fatalf("bg_wait should report exit 3 (a failed command: isError) and the answer: %+v", r)
	}
}

func TestExplicitTimeoutDetachesAndNeverKills(t *testing.T) {
	w := newWorld(t)
	cs := w.connect()
	r := call(t, cs, "bash", map[string]any{"command": "echo working; sleep 60", "timeout_seconds": 1})
	if r.isError || !strings.Contains(r.text, "timeout_seconds=1") || !strings.Contains(r.text, "working") {
		t.Fatalf("want a detach notice naming the timeout, got %+v", r)
	}
	id := taskIDIn(t, r.text)
	if st := w.state(id); st != bgtasks.Running {
		t.Fatalf("task %s is %s after its timeout; it must keep running", id, st)
	}
	call(t, cs, "bg_kill", map[string]any{"id": id})
}

func TestWatchdogKillIsAnErrorStartingWithItsLine(t *testing.T) {
	w := newWorld(t)
	w.projectConfig("watchdog:\n  action: kill\n  firstCheckMin: 0.02\n")
	cs := w.connect()
	forced := w.connectWith([]string{"HANGDOG_WATCHDOG_FORCE_ACT=1"})
	r := call(t, forced, "bash", map[string]any{"command": "echo started; sleep 60"})
	if !r.isError || !strings.HasPrefix(r.text, "⚠ Killed by hangdog watchdog") {
		t.Fatalf("want an error result starting with the watchdog's line, got %+v", r)
	}
	if !strings.Contains(r.text, "started") {
		t.Errorf("output before the kill is missing: %q", r.text)
	}
	// The session that ran it is not told again, and another session's
	// agent is told nothing: the task was not its own.
	if r := call(t, forced, "bg_tasks", nil); strings.Contains(r.notice, "killed") {
		t.Errorf("own kill repeated as a notification: %q", r.notice)
	}
	if r := call(t, cs, "bg_tasks", nil); r.notice != "" {
		t.Errorf("another session was told of a task it did not start: %q", r.notice)
	}
}

func TestLongOutputIsCutInTheMiddleAndReadableWithAnOffset(t *testing.T) {
	w := newWorld(t)
	cs := w.connect("--output-limit", "3000")
	r := call(t, cs, "bash", map[string]any{"command": "seq 1 20000"})
	if !strings.Contains(r.text, "\n1\n") || !strings.HasSuffix(r.text, "\n20000") {
		t.Fatalf("start or end missing: %q", r.text)
	}
	if len(r.text) > 4000 {
		t.Errorf("result is %d bytes, limit 3000", len(r.text))
	}
	m := regexp.MustCompile(`left out here \(bytes (\d+)-(\d+) of the task's log\); read it with bg_logs \{"id": "(t\d+)", "since_offset": (\d+)\}`).FindStringSubmatch(r.text)
	if m == nil {
		t.Fatalf("no note on what was left out: %q", r.text)
	}
	from, _ := strconv.Atoi(m[1])
	// The note sits between the last line shown and the first left out.
	before := r.text[:strings.Index(r.text, "[…")]
	lines := strings.Split(strings.TrimSpace(before), "\n")
	lastShown, _ := strconv.Atoi(lines[len(lines)-1])
	logs := call(t, cs, "bg_logs", map[string]any{"id": m[3], "since_offset": from})
	body := logs.text[strings.Index(logs.text, "Bytes "):]
	first := strings.Split(body, "\n")[1]
	if first != strconv.Itoa(lastShown+1) {
		t.Errorf("bg_logs from the offset starts at %q, want %d: %q", first, lastShown+1, logs.text)
	}
	if !strings.Contains(logs.text, `"since_offset": `) {
		t.Errorf("bg_logs does not say where to continue: %q", logs.text)
	}
	tail := call(t, cs, "bg_logs", map[string]any{"id": m[3], "tail_lines": 3})
	if !strings.HasSuffix(tail.text, "19998\n19999\n20000") {
		t.Errorf("tail_lines 3: %q", tail.text)
	}
}

func TestBackgroundCompletionIsPrependedExactlyOnce(t *testing.T) {
	w := newWorld(t)
	cs := w.connect()
	// The task ends only when told to, so its end cannot ride on the result
	// that started it.
	marker := filepath.Join(w.dir, "go") // the command runs in w.dir
	command := "while [ ! -e go ]; do sleep 0.05; done; echo finished-work; exit 4"
	r := call(t, cs, "bash", map[string]any{"command": command, "run_in_background": true})
	if r.isError || !strings.Contains(r.text, "Started task") {
		t.Fatalf("background start: %+v", r)
	}
	id := taskIDIn(t, r.text)
	if err := os.WriteFile(marker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	ev := w.endEvent(id)

	r = call(t, cs, "bg_tasks", nil)
	want := fmt.Sprintf("#%d Background task %s (%s) finished: exit 4", ev.Seq, id, "`"+command+"`")
	if !strings.Contains(r.notice, want) || !strings.Contains(r.notice, "finished-work") {
		t.Fatalf("notice %q lacks %q and the last lines", r.notice, want)
	}
	if !strings.Contains(r.text, id) {
		t.Errorf("the tool's own result is still there: %q", r.text)
	}
	r = call(t, cs, "bg_tasks", nil)
	if r.notice != "" {
		t.Errorf("event delivered twice: %q", r.notice)
	}
}

// rawSession speaks JSON-RPC to `hangdog mcp` by hand, so a test can stop
// reading its output at a chosen moment.
type rawSession struct {
	cmd *exec.Cmd
	in  *os.File
	out *bufio.Reader
	rd  *os.File
}

func (w *world) rawSession(args ...string) *rawSession {
	w.t.Helper()
	c := w.command(append([]string{"mcp"}, args...)...)
	inR, inW, err := os.Pipe()
	if err != nil {
		w.t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		w.t.Fatal(err)
	}
	c.Stdin, c.Stdout = inR, outW
	if err := c.Start(); err != nil {
		w.t.Fatal(err)
	}
	inR.Close()
	outW.Close()
	s := &rawSession{cmd: c, in: inW, out: bufio.NewReader(outR), rd: outR}
	w.t.Cleanup(func() {
		s.in.Close()
		s.rd.Close()
		c.Process.Kill()
		c.Wait()
	})
	s.send(w.t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if line, err := s.out.ReadString('\n'); err != nil || !strings.Contains(line, `"id":1`) {
		w.t.Fatalf("initialize: %q %v", line, err)
	}
	s.send(w.t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

func (s *rawSession) send(t testing.TB, line string) {
	t.Helper()
	if _, err := s.in.WriteString(line + "\n"); err != nil {
		t.Fatal(err)
	}
}

func TestEventIsDeliveredAgainWhenTheServerDiesBeforeWritingIt(t *testing.T) {
	w := newWorld(t)
	const consumer = "harness-1"
	first := w.rawSession("--consumer", consumer)

	// The harness runs the task in its own session, which the restarted
	// server (same --consumer) continues.
	start := w.command("bg", "run", "--session", consumer, "--", "sh", "-c", "echo survived; exit 5")
	out, err := start.Output()
	if err != nil {
		t.Fatalf("bg run: %v", err)
	}
	id := strings.TrimSpace(string(out))
	ev := w.endEvent(id)

	// The client stops reading; the server's write of the result that
	// carries the event kills it (SIGPIPE), so that result is never written.
	first.rd.Close()
	first.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bg_tasks","arguments":{}}}`)
	first.cmd.Wait()
	if ws, ok := first.cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGPIPE {
		t.Fatalf("the server should have died writing the result (SIGPIPE), got %v", first.cmd.ProcessState)
	}

	cs := w.connect("--consumer", consumer)
	r := call(t, cs, "bg_tasks", nil)
	want := fmt.Sprintf("#%d Background task %s", ev.Seq, id)
	if !strings.Contains(r.notice, want) {
		t.Fatalf("after the crash, the event was lost: notice %q, want %q", r.notice, want)
	}
	r = call(t, cs, "bg_tasks", nil)
	if r.notice != "" {
		t.Errorf("event delivered twice after it was written: %q", r.notice)
	}
	cs.Close()

	// A third start with the same consumer has nothing left to repeat.
	cs = w.connect("--consumer", consumer)
	if r := call(t, cs, "bg_tasks", nil); r.notice != "" {
		t.Errorf("written event repeated after a clean restart: %q", r.notice)
	}
}

// TestSessionsSeeOnlyTheirOwnTasksAndNews runs two MCP sessions at once,
// each starting a background task: each lists and is told of its own alone,
// once; a third asking for all lists both, and a harness's task started from
// the CLI in a session's name (--session) is that session's.
func TestSessionsSeeOnlyTheirOwnTasksAndNews(t *testing.T) {
	w := newWorld(t)
	a, b := w.connect("--consumer", "sess-a"), w.connect("--consumer", "sess-b")
	ids := map[string]string{}
	news := map[string]string{} // every notice a session got, in order
	for name, cs := range map[string]*mcp.ClientSession{"a": a, "b": b} {
		r := call(t, cs, "bash", map[string]any{"command": "echo job-" + name, "run_in_background": true})
		ids[name] = taskIDIn(t, r.text)
		news[name] += r.notice
	}
	out, err := w.command("bg", "run", "--session", "sess-a", "--", "echo", "harness-job").Output()
	if err != nil {
		t.Fatalf("bg run --session: %v", err)
	}
	ids["a-cli"] = strings.TrimSpace(string(out))
	for _, id := range ids {
		w.endEvent(id)
	}
	own := map[string][]string{"a": {ids["a"], ids["a-cli"]}, "b": {ids["b"]}}
	other := map[string][]string{"a": {ids["b"]}, "b": {ids["a"], ids["a-cli"]}}
	for name, cs := range map[string]*mcp.ClientSession{"a": a, "b": b} {
		r := call(t, cs, "bg_tasks", nil)
		news[name] += r.notice
		for _, id := range own[name] {
			if tag := "Background task " + id + " "; strings.Count(news[name], tag) != 1 {
				t.Errorf("session %s: want %q once in its news %q", name, tag, news[name])
			}
			if !strings.Contains(r.text, id+" ") {
				t.Errorf("session %s: its task %s is not listed:\n%s", name, id, r.text)
			}
		}
		for _, id := range other[name] {
			if strings.Contains(news[name], "task "+id+" ") || strings.Contains(r.text, id+" ") {
				t.Errorf("session %s sees the other session's task %s:\nnews %q\nlist %s", name, id, news[name], r.text)
			}
		}
		if r := call(t, cs, "bg_tasks", nil); r.notice != "" {
			t.Errorf("session %s got news twice: %q", name, r.notice)
		}
	}
	all := call(t, w.connect(), "bg_tasks", map[string]any{"all": true})
	for _, id := range ids {
		if !strings.Contains(all.text, id+" ") {
			t.Errorf("bg_tasks {all: true} does not list %s:\n%s", id, all.text)
		}
	}
}

func TestKilledRunIsAnErrorStartingWithTheReason(t *testing.T) {
	w := newWorld(t)
	cs := w.connect()
	done := make(chan reply, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "echo started; sleep 60"}})
		if err != nil {
			done <- reply{text: err.Error()}
			return
		}
		done <- toReply(t, res)
	}()
	id := w.runningTask()
	w.waitOutput(id, "started")
	if out, err := w.command("bg", "kill", id).CombinedOutput(); err != nil {
		t.Fatalf("bg kill: %v: %s", err, out)
	}
	r := <-done
	if !r.isError || !strings.HasPrefix(r.text, "⚠ Killed") {
		t.Fatalf("want an error result starting with the kill reason, got %+v", r)
	}
	if !strings.Contains(r.text, "started") {
		t.Errorf("output before the kill is missing: %q", r.text)
	}
}

func TestDetachAndMaxWaitReturnTheCallWithoutKilling(t *testing.T) {
	w := newWorld(t)
	cs := w.connect("--max-wait", "1s")
	r := call(t, cs, "bash", map[string]any{"command": "echo waiting; sleep 60"})
	if r.isError || !strings.Contains(r.text, "--max-wait") {
		t.Fatalf("max-wait should detach the call: %+v", r)
	}
	id := taskIDIn(t, r.text)
	if st := w.state(id); st != bgtasks.Running {
		t.Fatalf("task %s is %s after the max-wait detach; it must keep running", id, st)
	}
	r = call(t, cs, "bg_wait", map[string]any{"id": id, "timeout_seconds": 30})
	if r.isError || !strings.Contains(r.text, "still running") {
		t.Errorf("bg_wait past max-wait should say still running: %+v", r)
	}
	r = call(t, cs, "bg_kill", map[string]any{"id": id})
	if r.isError || !strings.Contains(r.text, "Stopped task "+id) {
		t.Fatalf("bg_kill: %+v", r)
	}
	if st := w.state(id); st != bgtasks.Killed {
		t.Errorf("after bg_kill the task is %s", st)
	}
	// The kill was reported by bg_kill itself, not again as news.
	if r := call(t, cs, "bg_tasks", nil); strings.Contains(r.notice, id+" ") {
		t.Errorf("own kill repeated as a notification: %q", r.notice)
	}
}

func TestBgDetachReturnsTheRunningBashCall(t *testing.T) {
	w := newWorld(t)
	cs := w.connect()
	r := call(t, cs, "bg_detach", nil)
	if !r.isError {
		t.Errorf("bg_detach with nothing running should be an error: %+v", r)
	}
	done := make(chan reply, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "echo serving; sleep 60"}})
		if err != nil {
			done <- reply{text: err.Error()}
			return
		}
		done <- toReply(t, res)
	}()
	id := w.runningTask()
	w.waitOutput(id, "serving")
	r = call(t, cs, "bg_detach", map[string]any{"reason": "server is up"})
	if r.isError || !strings.Contains(r.text, id) {
		t.Fatalf("bg_detach: %+v", r)
	}
	bash := <-done
	if bash.isError || !strings.Contains(bash.text, "server is up") || !strings.Contains(bash.text, "serving") {
		t.Fatalf("the bash call should return detached with the reason and output: %+v", bash)
	}
	call(t, cs, "bg_kill", map[string]any{"id": id})
}

func TestUnknownTaskIsAToolErrorNamingBgTasks(t *testing.T) {
	w := newWorld(t)
	cs := w.connect()
	for _, tool := range []string{"bg_logs", "bg_wait", "bg_kill"} {
		r := call(t, cs, tool, map[string]any{"id": "t999"})
		if !r.isError || !strings.Contains(r.text, "bg_tasks") {
			t.Errorf("%s t999: %+v", tool, r)
		}
	}
}

func (w *world) state(id string) bgtasks.State {
	w.t.Helper()
	task, err := w.registry().Get(id)
	if err != nil {
		w.t.Fatal(err)
	}
	return task.State()
}

func TestCancelledCallStopsItsCommand(t *testing.T) {
	w := newWorld(t)
	cs := w.connect()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "sleep 60"}})
		done <- err
	}()
	id := w.runningTask()
	cancel() // as a person pressing Esc in the client: the call is abandoned
	if err := <-done; err == nil {
		t.Fatal("a cancelled call returned no error to the client")
	}
	// A foreground call's command belongs to its caller: it is stopped.
	waitFor(t, "the cancelled command to stop", func() bool { return w.state(id).Ended() })
	// The session is still usable.
	if r := call(t, cs, "bash", map[string]any{"command": "echo still-here"}); !strings.Contains(r.text, "still-here") {
		t.Errorf("after a cancel: %+v", r)
	}
}

// TestSessionEndStopsTheSessionsTasks: when the client goes away, the tasks
// its session left running are stopped (tasks.onSessionEnd: kill, the
// default), and kept with keep; another session's task is never touched.
func TestSessionEndStopsTheSessionsTasks(t *testing.T) {
	for _, policy := range []string{"kill", "keep"} {
		t.Run(policy, func(t *testing.T) {
			w := newWorld(t)
			other := w.connect()
			survivor := taskIDIn(t, call(t, other, "bash", map[string]any{"command": "sleep 60", "run_in_background": true}).text)
			cs := w.connectWith([]string{"HANGDOG_TASKS_ONSESSIONEND=" + policy})
			id := taskIDIn(t, call(t, cs, "bash", map[string]any{"command": "sleep 60", "run_in_background": true}).text)
			cs.Close()
			if policy == "kill" {
				waitFor(t, "the ended session's task to be stopped", func() bool { return w.state(id).Ended() })
				task, _ := w.registry().Get(id)
				if task.Result == nil || !strings.Contains(task.Result.Reason, "session") {
					t.Errorf("the stopped task's record does not say why: %+v", task.Result)
				}
			} else {
				time.Sleep(time.Second)
				if st := w.state(id); st != bgtasks.Running {
					t.Errorf("with keep, the ended session's task is %s", st)
				}
				call(t, w.connect(), "bg_kill", map[string]any{"id": id})
			}
			if st := w.state(survivor); st != bgtasks.Running {
				t.Errorf("another session's task is %s after this one ended", st)
			}
			call(t, other, "bg_kill", map[string]any{"id": survivor})
		})
	}
}

// A client that sends a progressToken hears how a long call goes: the
// newest output lines, at most once a second, and nothing after the result.
func TestLongCallSendsProgressWithTheNewestLines(t *testing.T) {
	w := newWorld(t)
	type note struct {
		at  time.Time
		msg string
		val float64
	}
	var mu sync.Mutex
	var notes []note
	cs := w.connectClient(&mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
		mu.Lock()
		notes = append(notes, note{time.Now(), req.Params.Message, req.Params.Progress})
		mu.Unlock()
	}}, nil)
	params := &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "for i in 1 2 3 4; do echo step-$i; sleep 0.8; done"}}
	params.SetProgressToken("tok-1")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, params)
	if err != nil || res.IsError {
		t.Fatalf("bash: %v %+v", err, res)
	}
	returned := time.Now()
	time.Sleep(1500 * time.Millisecond) // a late notification would arrive by now
	mu.Lock()
	defer mu.Unlock()
	if len(notes) < 2 {
		t.Fatalf("want progress during a 3 s call, got %d notifications: %+v", len(notes), notes)
	}
	for i, n := range notes {
		if !strings.Contains(n.msg, "step-") || !strings.Contains(n.msg, "untrusted") {
			t.Errorf("progress %d does not quote the newest output as untrusted: %q", i, n.msg)
		}
		if n.at.After(returned) {
			t.Errorf("progress %d came after the result", i)
		}
		if i > 0 {
			if gap := n.at.Sub(notes[i-1].at); gap < 800*time.Millisecond {
				t.Errorf("progress %d only %s after the one before: not rate-limited", i, gap)
			}
			if n.val <= notes[i-1].val {
				t.Errorf("progress did not increase: %v then %v", notes[i-1].val, n.val)
			}
		}
	}
	if last := notes[len(notes)-1].msg; !strings.Contains(last, "step-3") && !strings.Contains(last, "step-4") {
		t.Errorf("the last progress should show the newest lines: %q", last)
	}
	// Without a token, nothing is sent.
	before := len(notes)
	mu.Unlock()
	call(t, cs, "bash", map[string]any{"command": "echo a; sleep 2.2; echo b"})
	mu.Lock()
	if len(notes) != before {
		t.Errorf("progress sent without a progressToken: %+v", notes[before:])
	}
}

// Task logs are resources: the template covers any task, the tasks a
// session starts are listed (with list_changed), and a subscriber hears
// when one ends and reads its whole output.
func TestTaskOutputIsAResourceUpdatedWhenTheTaskEnds(t *testing.T) {
	w := newWorld(t)
	listChanged := make(chan struct{}, 10)
	updated := make(chan string, 10)
	cs := w.connectClient(&mcp.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { listChanged <- struct{}{} },
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			updated <- req.Params.URI
		},
	}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tmpl, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(tmpl.ResourceTemplates) != 1 || tmpl.ResourceTemplates[0].URITemplate != "hangdog://tasks/{id}/output" {
		t.Fatalf("resource templates: %v %+v", err, tmpl)
	}
	if err := os.WriteFile(filepath.Join(w.dir, "go"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	r := call(t, cs, "bash", map[string]any{"command": "echo begun; while [ -e go ]; do sleep 0.05; done; echo resource-done", "run_in_background": true})
	id := r.data["task_id"].(string)
	uri := "hangdog://tasks/" + id + "/output"
	select {
	case <-listChanged:
	case <-ctx.Done():
		t.Fatal("no resources/list_changed when a task started")
	}
	list, err := cs.ListResources(ctx, nil)
	if err != nil || !slices.ContainsFunc(list.Resources, func(r *mcp.Resource) bool { return r.URI == uri }) {
		t.Fatalf("task %s not listed as a resource: %v %+v", id, err, list)
	}
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
		t.Fatalf("subscribe: %v", err)
	}
	w.waitOutput(id, "begun")
	if err := os.Remove(filepath.Join(w.dir, "go")); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-updated:
		if got != uri {
			t.Errorf("updated %q, want %q", got, uri)
		}
	case <-ctx.Done():
		t.Fatal("no resources/updated when the task ended")
	}
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil || len(res.Contents) != 1 || !strings.Contains(res.Contents[0].Text, "begun\nresource-done") {
		t.Fatalf("read %s: %v %+v", uri, err, res)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "hangdog://tasks/t999/output"}); err == nil {
		t.Error("reading an unknown task's output should fail")
	}
}

// Within a session, cd carries over to the next call as in a terminal;
// exports only with --carry-exports. The command is not rewritten, so its
// own exit code, traps and BASH_ENV still hold.
func TestCwdCarriesBetweenCallsExportsOnlyWhenAsked(t *testing.T) {
	w := newWorld(t)
	sub := filepath.Join(w.dir, "sub dir")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	userEnv := filepath.Join(w.dir, "user-bashenv")
	if err := os.WriteFile(userEnv, []byte("export FROM_USER_BASH_ENV=yes\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cs := w.connectWith([]string{"BASH_ENV=" + userEnv})
	if r := call(t, cs, "bash", map[string]any{"command": `trap 'echo own-trap' EXIT; true`}); !strings.Contains(r.text, "own-trap") {
		t.Fatalf("the command's own EXIT trap should run: %+v", r)
	}
	r := call(t, cs, "bash", map[string]any{"command": `cd "sub dir" && export CARRIED=1; exit 4`})
	if r.data["exit_code"] != 4.0 {
		t.Fatalf("the command's own exit code should hold: %+v", r)
	}
	real, _ := filepath.EvalSymlinks(sub)
	r = call(t, cs, "bash", map[string]any{"command": `pwd; echo "carried=${CARRIED-unset} user=${FROM_USER_BASH_ENV-unset}"; bash -c 'echo nested=$HANGDOG_SHELL_TRAP'; cd /`})
	if !strings.Contains(r.text, real+"\n") {
		t.Errorf("cd did not carry over: %q (want %s)", r.text, real)
	}
	if !strings.Contains(r.text, "carried=unset user=yes") {
		t.Errorf("exports carried without --carry-exports, or the user's BASH_ENV not read: %q", r.text)
	}
	if r = call(t, cs, "bash", map[string]any{"command": "pwd"}); !strings.Contains(r.text, "\n/\n") && !strings.HasSuffix(r.text, "\n/") {
		t.Errorf("the last cd / did not carry over: %q", r.text)
	}
	if r = call(t, cs, "bash", map[string]any{"command": "pwd", "cwd": w.dir}); !strings.Contains(r.text, w.dir) {
		t.Errorf("an explicit cwd should win: %q", r.text)
	}

	opted := w.connect("--carry-exports")
	call(t, opted, "bash", map[string]any{"command": `cd "sub dir"; export CARRIED='a b'`})
	r = call(t, opted, "bash", map[string]any{"command": `echo "carried=${CARRIED-unset}"; pwd`})
	if !strings.Contains(r.text, "carried=a b") || !strings.Contains(r.text, real) {
		t.Errorf("with --carry-exports the export and the cwd should carry: %q", r.text)
	}
}

// The footer is fitted to what the command waits for: a pager is quit with
// q (and turned off next time), never answered with "y".
// A call reuses the cwd file an earlier call of the session emptied (no file
// is created per call): a call whose shell dies before its EXIT trap runs
// must not carry the earlier call's directory, and the command never sees
// the variables that hand it its paths.
func TestCwdOfAKilledShellDoesNotCarry(t *testing.T) {
	w := newWorld(t)
	cs := w.connect()
	sub := filepath.Join(w.dir, "sub")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(sub)
	call(t, cs, "bash", map[string]any{"command": "cd sub"})
	r := call(t, cs, "bash", map[string]any{"command": "env | grep -c '^HANGDOG_SHELL_\\(CWD\\|SAVE\\|LOAD\\)=' || true; cd /; kill -9 $$"})
	if !strings.Contains(r.text, "0") {
		t.Errorf("the command sees the shell-state variables: %q", r.text)
	}
	if r = call(t, cs, "bash", map[string]any{"command": "pwd"}); !strings.Contains(r.text, real) {
		t.Errorf("after a shell killed in /, the session should still be in %s: %q", real, r.text)
	}
}

func TestPagerDetachAdvisesQuittingIt(t *testing.T) {
	w := newWorld(t)
	w.projectConfig("watchdog:\n  inputWaitSec: 1\n")
	cs := w.connect()
	r := call(t, cs, "bash", map[string]any{"command": `seq 1 500 | less`})
	if r.data["status"] != "detached" || r.data["wait"] != "pager" {
		t.Fatalf("want less detached as a pager: %v %q", r.data, r.text)
	}
	id := r.data["task_id"].(string)
	defer call(t, cs, "bg_kill", map[string]any{"id": id})
	for _, want := range []string{`bg_send {"id": "` + id + `", "text": "q"}`, "--no-pager"} {
		if !strings.Contains(r.text, want) {
			t.Errorf("pager footer lacks %q: %q", want, r.text)
		}
	}
	if strings.Contains(r.text, `y\n`) || strings.Contains(r.text, "ANSWER") {
		t.Errorf("pager footer offers typing an answer: %q", r.text)
	}
}

// A long output reaches the model as its head and its end, the cut marked
// between them, never as the end alone.
func TestHugeOutputKeepsItsHeadAndItsEnd(t *testing.T) {
	w := newWorld(t)
	cs := w.connect()
	r := call(t, cs, "bash", map[string]any{"command": "seq 1 100000"})
	note := regexp.MustCompile(`\n\[… [^\n]* left out here \(bytes (\d+)-(\d+) of the task's log\); read it with bg_logs [^\n]*…\]\n`)
	m := note.FindStringSubmatchIndex(r.text)
	if m == nil {
		t.Fatalf("no marker of the cut: %.300q…", r.text)
	}
	head, tail := r.text[:m[0]], r.text[m[1]:]
	if !strings.Contains(head, "\n1\n2\n3\n") || !strings.HasSuffix(tail, "\n99999\n100000") {
		t.Errorf("first or last lines missing: head …%q, tail …%q", head[max(len(head)-40, 0):], tail[max(len(tail)-40, 0):])
	}
	omitted, _ := r.data["omitted"].(map[string]any)
	from, _ := strconv.Atoi(r.text[m[2]:m[3]])
	to, _ := strconv.Atoi(r.text[m[4]:m[5]])
	if omitted == nil || omitted["from"] != float64(from) || omitted["to"] != float64(to) || from >= to {
		t.Errorf("structured omitted %v, the note says %d-%d", r.data["omitted"], from, to)
	}
}

// A full-screen program's output is the screen it drew, row by row, not
// the fragments its cursor moves put on one line; and an editor's cursor
// is not read as a question waiting for an answer.
func TestEditorOutputIsTheScreenItDrew(t *testing.T) {
	vi, err := exec.LookPath("vi")
	if err != nil {
		t.Skip("no vi on PATH (.ci/run installs vim-tiny)")
	}
	w := newWorld(t)
	w.projectConfig("watchdog:\n  inputWaitSec: 1\n")
	cs := w.connect()
	r := call(t, cs, "bash", map[string]any{"command": vi + " x.txt"})
	if r.data["status"] != "detached" || r.data["wait"] != "editor" {
		t.Fatalf("want vi detached as an editor: %v %q", r.data, r.text)
	}
	defer call(t, cs, "bg_kill", map[string]any{"id": r.data["task_id"]})
	if r.data["screen"] != true || !strings.Contains(r.text, "full-screen program drew the screen below") {
		t.Errorf("result does not say it shows a screen: %v %q", r.data["screen"], r.text)
	}
	lines := strings.Split(r.text, "\n")
	tildes, status := 0, false
	for _, l := range lines {
		if l == "~" {
			tildes++
		}
		if strings.HasPrefix(l, `"x.txt"`) {
			status = true
		}
	}
	if tildes < 10 || !status {
		t.Errorf("want the editor's rows (%d lines of \"~\", status line %v): %q", tildes, status, r.text)
	}
	if strings.Contains(r.text, "no newline yet") {
		t.Errorf("an editor's screen is read as a question: %q", r.text)
	}
}

// readResponse reads lines until the response to request id, and returns it.
func (s *rawSession) readResponse(t testing.TB, id int) string {
	t.Helper()
	want := fmt.Sprintf(`"id":%d,`, id)
	for {
		line, err := s.out.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the response to request %d: %v", id, err)
		}
		if strings.Contains(line, want) {
			return line
		}
	}
}

// A client that gives up on a call sends notifications/cancelled; when that
// crosses the call's result on the wire, the client drops the result
// unread. What the result told — the notices at its top, the detach of its
// own command — must come again at the top of the next result, once.
func TestACancelThatCrossesTheResultTellsItsNewsAgain(t *testing.T) {
	w := newWorld(t)
	const consumer = "harness-crossed"
	s := w.rawSession("--consumer", consumer)

	start := w.command("bg", "run", "--session", consumer, "--", "sh", "-c", "exit 3")
	out, err := start.Output()
	if err != nil {
		t.Fatalf("bg run: %v", err)
	}
	id := strings.TrimSpace(string(out))
	ev := w.endEvent(id)
	notice := fmt.Sprintf("#%d Background task %s", ev.Seq, id)

	s.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bg_tasks","arguments":{}}}`)
	if r := s.readResponse(t, 2); !strings.Contains(r, notice) {
		t.Fatalf("the first result should carry %q: %s", notice, r)
	}
	// The cancel comes a moment after the result was written (it was sent
	// before the result arrived, but travelled slower), once the server has
	// settled the written result.
	time.Sleep(200 * time.Millisecond)
	s.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"Request timed out"}}`)
	s.send(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"bg_tasks","arguments":{}}}`)
	if r := s.readResponse(t, 3); !strings.Contains(r, notice) {
		t.Errorf("the result its client cancelled unread was not told again: %s", r)
	}
	s.send(t, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"bg_tasks","arguments":{}}}`)
	if r := s.readResponse(t, 4); strings.Contains(r, notice) {
		t.Errorf("told a third time: %s", r)
	}

	// A bash call whose result says its command was moved to the
	// background: that detach is not a notice while the result is read,
	// and is one when the result was not.
	s.send(t, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"bash","arguments":{"command":"sleep 120","timeout_seconds":1}}}`)
	r := s.readResponse(t, 5)
	m := regexp.MustCompile(`Task (t\d+) \(`).FindStringSubmatch(r)
	if m == nil || !strings.Contains(r, "moved it to the background") {
		t.Fatalf("the bash call should come back detached: %s", r)
	}
	time.Sleep(200 * time.Millisecond)
	s.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"reason":"Request timed out"}}`)
	s.send(t, `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"bg_tasks","arguments":{}}}`)
	if r := s.readResponse(t, 6); !strings.Contains(r, "Task "+m[1]+" (`sleep 120`) was moved to the background") {
		t.Errorf("the detach of %s, told only in a result its client dropped, was not told again: %s", m[1], r)
	}
	s.send(t, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"bg_kill","arguments":{"id":"`+m[1]+`"}}}`)
	s.readResponse(t, 7)
}
