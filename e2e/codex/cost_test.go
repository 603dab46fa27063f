//go:build linux

package codex

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hangdog/hangdog/internal/testbin"
)

// TestCallCost measures what one shell call costs through the real Codex,
// as the model feels it: from the stand-in's function_call to the request
// carrying its function_call_output (the stand-in's Wall). Each session
// makes HANGDOG_E2E_COST_CALLS (default 20) calls of `true`; the first is
// left out as warm-up (an MCP server's start). Modes run interleaved, round
// by round, a different one first each round, so a busy machine weighs on
// all alike. Beside each median goes the median "Wall time" Codex writes at
// the head of the tool's output (its own timing of the call). Only with
// HANGDOG_E2E_COST=ROUNDS: scripts/bench-codex.sh runs it. The target is
// issue 27's: mcp within 0.8x codex. Every mode runs `codex exec
// --dangerously-bypass-approvals-and-sandbox`, as the other tests here do:
// no approval, no sandbox around Codex's own tool (hangdog's runs none).
// HANGDOG_E2E_COST_MODES picks modes:
//   - codex: Codex's own shell tool, exec_command {"cmd": "true"}, with no
//     MCP server configured (the control);
//   - mcp: hangdog's bash tool, configured as
//     scripts/mcp-config/codex-config.toml says, and no other server;
//   - nullmcp: the test MCP server's quick tool, which answers at once and
//     runs nothing: Codex's own cost of any MCP tool call, the floor under
//     mcp.
func TestCallCost(t *testing.T) {
	rounds, calls, modes := testbin.CostRun(t, "scripts/bench-codex.sh", "codex", "mcp", "nullmcp")
	if codex == "" {
		t.Skip(skipWhy)
	}
	var stub string
	if slices.Contains(modes, "nullmcp") {
		var err error
		if stub, err = testbin.MCPStub(t.TempDir()); err != nil {
			t.Fatal(err)
		}
	}
	inside := map[string][]time.Duration{} // the Wall time Codex itself reports for each call
	walls, perRound := testbin.Interleaved(rounds, modes, func(mode string, round int) []time.Duration {
		outs := costSession(t, mode, calls, stub)
		if len(outs) != calls {
			t.Fatalf("%s round %d: %d results came back, want %d: %+v", mode, round, len(outs), calls, outs)
		}
		if round == 0 {
			t.Logf("%s: the model saw %q", mode, outs[1].Text)
		}
		var ws []time.Duration
		for _, x := range outs[1:] { // the first call pays for warming up: not per call
			ws = append(ws, x.Wall)
			if m := codexWall.FindStringSubmatch(x.Text); m != nil {
				s, _ := strconv.ParseFloat(m[1], 64)
				inside[mode] = append(inside[mode], time.Duration(s*float64(time.Second)))
			}
		}
		return ws
	})
	control := testbin.Median(walls["codex"])
	for _, mode := range modes {
		m := testbin.Median(walls[mode])
		ratio := ""
		if control > 0 {
			ratio = fmt.Sprintf("%.2fx", float64(m)/float64(control))
		}
		line := fmt.Sprintf("cost %-8s median %6.1f ms per call, %s codex; Codex's own Wall time %5.1f ms (%d calls; per-round medians %s)",
			mode, testbin.Millis(m), ratio, testbin.Millis(testbin.Median(inside[mode])), len(walls[mode]), strings.Join(perRound[mode], " "))
		t.Log(line)
		fmt.Println(line)
	}
}

// costSession runs one `codex exec` of calls calls of `true` in mode, and
// checks that each call ran: its output is what the tool says of a run
// that ended with status 0.
func costSession(t *testing.T, mode string, calls int, stub string) []output {
	t.Helper()
	var call toolCall
	var extra []string
	withHangdog := false
	want := ""
	switch mode {
	case "codex":
		call = toolCall{Name: "exec_command", Args: map[string]any{"cmd": "true"}}
		want = "Process exited with code 0"
	case "mcp":
		call = toolCall{Namespace: "mcp__hangdog", Name: "bash", Args: map[string]any{"command": "true"}}
		withHangdog, want = true, "Exit 0"
	case "nullmcp":
		call = toolCall{Namespace: "mcp__stub", Name: "quick", Args: map[string]any{"text": "true"}}
		extra = append(extra, fmt.Sprintf("[mcp_servers.stub]\ncommand = %q\n", stub))
		want = "quick: true"
	default:
		t.Fatalf("unknown mode %q (codex, mcp, nullmcp)", mode)
	}
	api := newStandin(nil)
	defer api.srv.Close()
	for range calls {
		api.tools = append(api.tools, call)
	}
	h := makeHome(t, api, withHangdog, extra...)
	h.exec(t, "--skip-git-repo-check", "--json", "--dangerously-bypass-approvals-and-sandbox", "Follow the script.")
	kill(h.env, h.marker)
	api.mu.Lock()
	defer api.mu.Unlock()
	for i, x := range api.outputs {
		if !strings.Contains(x.Text, want) {
			t.Fatalf("%s call %d: the model saw %q, which lacks %q", mode, i, x.Text, want)
		}
	}
	return slices.Clone(api.outputs)
}

// codexWall is the "Wall time: S seconds" Codex puts at the head of every
// tool's output: its own timing of the call, from its start to its result.
var codexWall = regexp.MustCompile(`Wall time: ([0-9.]+) seconds`)
