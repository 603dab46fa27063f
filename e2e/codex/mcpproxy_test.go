//go:build linux

package codex

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hangdog/hangdog/internal/testbin"
)

// The real Codex with `hangdog mcp-proxy` in front of a server whose tool
// deadlocks, configured as docs/agents.md shows for config.toml (checks
// every 2 s here): the model reads the abort and why, and the session goes
// on to the server's next call.
func TestCodexSeesMCPProxyAbort(t *testing.T) {
	if codex == "" {
		t.Skip(skipWhy)
	}
	stub, err := testbin.MCPStub(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	api := newStandin(nil)
	api.tools = []toolCall{
		{Namespace: "mcp__stub", Name: "deadlock", Args: map[string]any{}},
		{Namespace: "mcp__stub", Name: "quick", Args: map[string]any{"text": "after"}},
	}
	defer api.srv.Close()
	h := newHome(t, api, fmt.Sprintf(`
[mcp_servers.stub]
command = "hangdog"
args = ["mcp-proxy", "--name", "stub", "--", %q]
env = { HANGDOG_WATCHDOG_OTHERTOOLS = "abort-turn", HANGDOG_WATCHDOG_FIRSTCHECKMIN = "0.0333", HANGDOG_WATCHDOG_INTERVALMIN = "0.0333" }
`, stub))
	h.exec(t, "--skip-git-repo-check", "--json", "--dangerously-bypass-approvals-and-sandbox", "Follow the script.")
	kill(h.env, h.marker)
	api.mu.Lock()
	outs := api.outputs
	api.mu.Unlock()
	if len(outs) != 2 {
		t.Fatalf("%d results came back, want 2: %+v", len(outs), outs)
	}
	for i, x := range outs {
		t.Logf("call %d: %.1f s: %q", i, x.Wall.Seconds(), x.Text)
	}
	if x := outs[0]; !strings.Contains(x.Text, "aborted this call of deadlock") || !strings.Contains(x.Text, "no CPU") {
		t.Errorf("the model saw %q, want the abort and what was seen", x.Text)
	} else if limit := time.Duration(float64(20*time.Second) * testbin.LoadScale()); x.Wall > limit {
		t.Errorf("the abort took %.1f s, want < %v", x.Wall.Seconds(), limit)
	}
	if !strings.Contains(outs[1].Text, "quick: after") {
		t.Errorf("the next call got %q", outs[1].Text)
	}
}
