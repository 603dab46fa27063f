//go:build linux

package claudecode

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hangdog/hangdog/internal/testbin"
)

var (
	stubOnce sync.Once
	stubBin  string // the MCP server written for the proxy's tests
	stubErr  error
)

// proxyConfig writes the .mcp.json of the mcpproxy mode: the test MCP
// server behind `hangdog mcp-proxy` under abort-turn, its checks every two
// seconds (the settings given in the server's env, as docs/agents.md shows).
func proxyConfig(t *testing.T, root string) string {
	return stubConfig(t, root, "hangdog", []string{"mcp-proxy", "--name", "stub", "--", stubPath(t)}, map[string]string{
		"HANGDOG_WATCHDOG_OTHERTOOLS":    "abort-turn",
		"HANGDOG_WATCHDOG_FIRSTCHECKMIN": "0.0333",
		"HANGDOG_WATCHDOG_INTERVALMIN":   "0.0333",
	})
}

// nullMCPConfig writes the .mcp.json of the nullmcp reference: the test MCP
// server alone, whose quick tool answers at once and runs nothing, so a call
// costs only what the client spends on any MCP tool call.
func nullMCPConfig(t *testing.T, root string) string {
	return stubConfig(t, root, stubPath(t), nil, nil)
}

func stubPath(t *testing.T) string {
	t.Helper()
	stubOnce.Do(func() { stubBin, stubErr = testbin.MCPStub(binDir) })
	if stubErr != nil {
		t.Fatal(stubErr)
	}
	return stubBin
}

// stubConfig writes an .mcp.json naming one server, "stub".
func stubConfig(t *testing.T, root, command string, args []string, env map[string]string) string {
	t.Helper()
	server := map[string]any{"command": command}
	if args != nil {
		server["args"] = args
	}
	if env != nil {
		server["env"] = env
	}
	b, err := json.Marshal(map[string]any{"mcpServers": map[string]any{"stub": server}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, "stub.mcp.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// The real Claude Code with `hangdog mcp-proxy` in front of a server whose
// tool deadlocks: the call is aborted within the checks, the model reads
// why in the tool_result, and the session goes on to the server's next
// call and its final turn.
func TestMCPProxyAbortReachesTheModel(t *testing.T) {
	needClaude(t)
	sc := scenario{name: "mcpproxy", turns: []turn{
		{Tool: "mcp__stub__deadlock", Input: map[string]any{}},
		{Tool: "mcp__stub__quick", Input: map[string]any{"text": "after"}},
		done(),
	}}
	r := startClaude(t, sc, "mcpproxy")
	report(t, sc.name, r)
	if r.rc != 0 {
		t.Fatalf("claude -p exited %d: %s", r.rc, r.stderr)
	}
	if len(r.results) != 2 {
		t.Fatalf("%d tool results, want 2 (the aborted call's and the next's)", len(r.results))
	}
	x := r.results[0]
	if !x.IsError || !strings.Contains(x.Text, "aborted this call of deadlock") || !strings.Contains(x.Text, "no CPU") {
		t.Errorf("the model saw %q (is_error=%v), want the abort and what was seen", x.Text, x.IsError)
	}
	// First check at 2 s, then every 2 s, two to agree, one more the judge
	// may take: 8 s, and the client's own time around it.
	within(t, r, x, 20*time.Second)
	if y := r.results[1]; y.IsError || !strings.Contains(y.Text, "quick: after") {
		t.Errorf("the next call got %q (is_error=%v)", y.Text, y.IsError)
	}
}
