//go:build linux

package codex

import (
	"context"
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
	"syscall"
	"testing"
	"time"

	"github.com/hangdog/hangdog/internal/testbin"
)

// CodexVersion is the Codex CLI this test is pinned to; keep it in step
// with .ci/install-agent-clis.
const CodexVersion = "0.171.0"

var (
	codex, skipWhy, binDir, repoRoot string
)

// pinnedCodex is the CLI this test runs, found at $HANGDOG_CODEX, on PATH,
// or under the prefix .ci/install-agent-clis installs into
// ($HANGDOG_E2E_CODEX_PREFIX).
var pinnedCodex = testbin.Pinned{
	Name: "codex", Version: CodexVersion, EnvBin: "HANGDOG_CODEX", EnvPrefix: "HANGDOG_E2E_CODEX_PREFIX",
	Dir: "codex-" + CodexVersion, Package: "@openai/codex", Installer: ".ci/install-agent-clis",
}

func TestMain(m *testing.M) {
	codex, skipWhy = pinnedCodex.Find()
	wd, _ := os.Getwd()
	repoRoot = filepath.Clean(filepath.Join(wd, "../.."))
	testbin.Main(m, "hdcx", codex != "", func(bin string) { binDir = testbin.Dir(bin) })
}

// standin plays the model over the Responses API: the n-th request (n
// function calls already in its input) gets the n-th scripted command as a
// call of hangdog's bash tool, past the script a final message. It records
// each function_call_output with the time since its call was sent.
type standin struct {
	srv      *httptest.Server
	commands []string
	tools    []toolCall // instead of commands: calls of other tools

	// delay holds a reply back, as a slow model would (nil: none): a turn
	// in progress, for a test to interrupt.
	delay func(body string) time.Duration

	mu      sync.Mutex
	sent    map[string]time.Time
	outputs []output
	finalAt time.Time
	bodies  []request // every Responses request, in order
}

// request is a request's body and when it came.
type request struct {
	Body string
	At   time.Time
}

type output struct {
	Text string
	Wall time.Duration
}

// toolCall is one call the stand-in makes of a tool: an MCP server's, or
// (no namespace) one of Codex's own.
type toolCall struct {
	Namespace, Name string // "mcp__SERVER" or "", the tool
	Args            map[string]any
}

func newStandin(commands []string) *standin {
	s := &standin{commands: commands, sent: map[string]time.Time{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

func (s *standin) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/responses") {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"data": [], "models": []}`)
		return
	}
	var req struct {
		Input []struct {
			Type   string          `json:"type"`
			CallID string          `json:"call_id"`
			Output json.RawMessage `json:"output"`
		} `json:"input"`
	}
	json.Unmarshal(body, &req)
	now := time.Now()
	calls := 0
	s.mu.Lock()
	s.bodies = append(s.bodies, request{Body: string(body), At: now})
	for _, it := range req.Input {
		switch it.Type {
		case "function_call":
			calls++
		case "function_call_output":
			if t, ok := s.sent[it.CallID]; ok {
				delete(s.sent, it.CallID)
				s.outputs = append(s.outputs, output{Text: outputText(it.Output), Wall: now.Sub(t)})
			}
		}
	}
	s.mu.Unlock()
	var item map[string]any
	if calls < len(s.commands) || calls < len(s.tools) {
		id := fmt.Sprintf("call_%d", calls)
		tc := toolCall{Namespace: "mcp__hangdog", Name: "bash"}
		if s.tools != nil {
			tc = s.tools[calls]
		} else {
			tc.Args = map[string]any{"command": s.commands[calls]}
		}
		args, _ := json.Marshal(tc.Args)
		item = map[string]any{"type": "function_call", "id": "fc_" + id, "call_id": id, "name": tc.Name, "arguments": string(args)}
		if tc.Namespace != "" {
			item["namespace"] = tc.Namespace
		}
		s.mu.Lock()
		s.sent[id] = time.Now()
		s.mu.Unlock()
	} else {
		item = map[string]any{"type": "message", "role": "assistant", "id": "msg_final", "content": []map[string]any{{"type": "output_text", "text": "Done."}}}
		s.mu.Lock()
		s.finalAt = time.Now()
		s.mu.Unlock()
	}
	if s.delay != nil {
		select {
		case <-time.After(s.delay(string(body))):
		case <-r.Context().Done():
			return // the client went away mid-turn
		}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	rid := fmt.Sprintf("resp_%d", now.UnixNano())
	for _, ev := range []map[string]any{
		{"type": "response.created", "response": map[string]any{"id": rid}},
		{"type": "response.output_item.done", "output_index": 0, "item": item},
		{"type": "response.completed", "response": map[string]any{"id": rid, "usage": map[string]any{"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}}},
	} {
		b, _ := json.Marshal(ev)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev["type"], b)
	}
}

// outputText is a function_call_output's text: a string, or input_text parts.
func outputText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct{ Text string }
	json.Unmarshal(raw, &parts)
	var b []string
	for _, p := range parts {
		b = append(b, p.Text)
	}
	return strings.Join(b, "\n")
}

// home is a throw-away HOME, CODEX_HOME, hangdog home and work dir for
// `codex exec` with hangdog as its MCP server, configured as
// scripts/mcp-config/codex-config.toml says, and the stand-in as its model.
type home struct {
	work, codexHome, hd, marker string
	env                         []string
}

// newHome's extra is appended to the config (more MCP servers).
func newHome(t *testing.T, api *standin, extra ...string) *home {
	return makeHome(t, api, true, extra...)
}

// makeHome is newHome, with hangdog's MCP server configured or not
// (Codex alone, or with only the servers in extra).
func makeHome(t *testing.T, api *standin, withHangdog bool, extra ...string) *home {
	root, err := os.MkdirTemp("", "cx") // short: hangdog's sockets live under it
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	h := &home{work: filepath.Join(root, "work"), codexHome: filepath.Join(root, "home", ".codex"), hd: filepath.Join(root, "h")}
	for _, d := range []string{h.work, h.codexHome} {
		os.MkdirAll(d, 0o700)
	}
	recipe, err := os.ReadFile(filepath.Join(repoRoot, "scripts/mcp-config/codex-config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	servers := ""
	if withHangdog {
		servers = fmt.Sprintf("%s\n[mcp_servers.hangdog.env]\nHANGDOG_HOME = %q\n\n", recipe, h.hd)
	}
	cfg := fmt.Sprintf("model = \"gpt-5\"\nmodel_provider = \"standin\"\n\n%s"+
		"[model_providers.standin]\nname = \"standin\"\nbase_url = %q\nwire_api = \"responses\"\nenv_key = \"STANDIN_API_KEY\"\n",
		servers, api.srv.URL+"/v1")
	cfg += strings.Join(extra, "\n")
	if err := os.WriteFile(filepath.Join(h.codexHome, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	h.marker = fmt.Sprintf("HANGDOG_E2E_RUN=codex-%d-%d", os.Getpid(), time.Now().UnixNano())
	h.env = []string{"HOME=" + filepath.Join(root, "home"), "CODEX_HOME=" + h.codexHome, "HANGDOG_HOME=" + h.hd,
		"PATH=" + binDir + ":" + os.Getenv("PATH") + ":" + filepath.Dir(codex),
		"STANDIN_API_KEY=standin", "TMPDIR=" + os.TempDir(), "LANG=C.UTF-8", h.marker}
	t.Cleanup(func() { kill(h.env, h.marker) })
	return h
}

// exec runs `codex exec ARGS` to completion in the work dir.
func (h *home) exec(t *testing.T, args ...string) (out []byte, end time.Time) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, codex, append([]string{"exec"}, args...)...)
	c.Dir, c.Env = h.work, h.env
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
	out, err := c.CombinedOutput()
	end = time.Now()
	if err != nil {
		t.Errorf("codex exec: %v\n%s", err, out)
	}
	return out, end
}

// session runs `codex exec` on the script.
func session(t *testing.T, commands []string) (outputs []output, afterFinal time.Duration) {
	api := newStandin(commands)
	defer api.srv.Close()
	h := newHome(t, api)
	_, end := h.exec(t, "--skip-git-repo-check", "--json", "--dangerously-bypass-approvals-and-sandbox", "Follow the script.")
	kill(h.env, h.marker)
	api.mu.Lock()
	defer api.mu.Unlock()
	if !api.finalAt.IsZero() {
		afterFinal = end.Sub(api.finalAt)
	}
	return api.outputs, afterFinal
}

// kill stops what a session left: its hangdog tasks, then by PID whatever
// carries its marker.
func kill(env []string, marker string) {
	ls := exec.Command(filepath.Join(binDir, "hangdog"), "bg", "ls", "--json", "--all") // every task the run left, whoever owns it
	ls.Env = env
	var tasks []struct{ ID, State string }
	if out, err := ls.Output(); err == nil {
		json.Unmarshal(out, &tasks)
	}
	for _, task := range tasks {
		if task.State == "running" {
			k := exec.Command(filepath.Join(binDir, "hangdog"), "bg", "kill", task.ID)
			k.Env = env
			k.Run()
		}
	}
	testbin.KillMarked(marker)
}

func TestCodexRunsHangdogBash(t *testing.T) {
	if codex == "" {
		t.Skip(skipWhy)
	}
	for _, tc := range []struct {
		name, command string
		limit         time.Duration
		want          []string
	}{
		{"echo", "echo hello", 5 * time.Second, []string{"Exit 0", "hello"}},
		{"prompt", `read -p "Continue? [y/N] " a; echo "got $a"`, 15 * time.Second,
			[]string{"moved it to the background", "waiting for input", "Continue? [y/N]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			outs, afterFinal := session(t, []string{tc.command})
			if len(outs) != 1 {
				t.Fatalf("%d results came back, want 1: %+v", len(outs), outs)
			}
			x := outs[0]
			t.Logf("%s: %.1f s: %q; codex exec ended %.1f s after its final turn", tc.name, x.Wall.Seconds(), x.Text, afterFinal.Seconds())
			for _, w := range tc.want {
				if !strings.Contains(x.Text, w) {
					t.Errorf("the model saw %q, which lacks %q", x.Text, w)
				}
			}
			if limit := time.Duration(float64(tc.limit) * testbin.LoadScale()); x.Wall > limit {
				t.Errorf("the call took %.1f s, want < %v (%v at this load)", x.Wall.Seconds(), tc.limit, limit)
			}
			if limit := time.Duration(float64(30*time.Second) * testbin.LoadScale()); afterFinal > limit {
				t.Errorf("codex exec ended %.1f s after its final turn", afterFinal.Seconds())
			}
		})
	}
}
