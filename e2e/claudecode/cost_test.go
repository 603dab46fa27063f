//go:build linux

package claudecode

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hangdog/hangdog/internal/testbin"
)

// TestCallCost measures what one Bash call costs through the real Claude
// Code in each way of wiring hangdog in, as the model feels it: from the
// stand-in's tool_use reply to the request carrying the result (the
// stand-in's Wall). Modes run interleaved, round by round, so a busy
// machine weighs on all alike. Only with HANGDOG_E2E_COST=ROUNDS (and
// optionally HANGDOG_E2E_COST_CALLS, default 20): scripts/bench-claude-code.sh
// runs it. The targets are issue 27's: the hook recipe and MCP with the
// hooks within 1.3x plain Claude Code, MCP alone within 1.0x.
// HANGDOG_E2E_COST_MODES picks modes; besides plain, hook, mcp (with the
// hooks) and mcp-alone there are four references that say where the time
// goes: nullhook (a PreToolUse hook that reads its input and answers
// nothing: the client's own cost of having a hook), nullrewrite (a hook
// that answers the call's own command as an updated input with allow, as
// the recipe's hook answers: the client's cost of taking a rewrite, the
// floor under the hook recipe), nullmcp (an MCP server
// whose tool answers at once and runs nothing: the client's own cost of an
// MCP tool call, the floor under mcp-alone) and prefix (no hook; Claude
// Code's CLAUDE_CODE_SHELL_PREFIX runs its shell line under `hangdog run`:
// the cost of supervising a call at all).
func TestCallCost(t *testing.T) {
	rounds, calls, modes := testbin.CostRun(t, "scripts/bench-claude-code.sh", "plain", "hook", "mcp", "mcp-alone")
	needClaude(t)
	turns := make([]turn, 0, calls+1)
	for range calls {
		turns = append(turns, bash("true", 30000))
	}
	turns = append(turns, done())
	walls, perRound := testbin.Interleaved(rounds, modes, func(mode string, round int) []time.Duration {
		r := startClaude(t, scenario{name: "cost", turns: turns}, mode)
		if r.rc != 0 || len(r.results) != calls {
			t.Fatalf("%s round %d: claude exit %d, %d results of %d\n%s", mode, round, r.rc, len(r.results), calls, r.stderr)
		}
		var ws []time.Duration
		// The first call pays for warming up (the MCP server's
		// start, the first hook's page cache): not per call.
		for _, x := range r.results[1:] {
			ws = append(ws, x.Wall)
		}
		return ws
	})
	plain := testbin.Median(walls["plain"])
	for _, mode := range modes {
		m := testbin.Median(walls[mode])
		ratio := ""
		if plain > 0 {
			ratio = fmt.Sprintf("%.2fx", float64(m)/float64(plain))
		}
		line := fmt.Sprintf("cost %-9s median %6.1f ms per call, %s plain (%d calls; per-round medians %s)",
			mode, testbin.Millis(m), ratio, len(walls[mode]), strings.Join(perRound[mode], " "))
		t.Log(line)
		fmt.Println(line)
	}
}
