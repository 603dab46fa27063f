package tui

import (
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/internal/testbin"
	"github.com/hangdog/hangdog/taskctl"
)

// The MCP calls in flight stand beside the background count and give way
// with it: whole at a wide bar, then "mcp: N AGE", then "mcp: N"; a stuck
// one is said so, in the warning style.
func TestStatusBarShowsCallsInFlight(t *testing.T) {
	now := time.Now()
	m := &Model{action: "background", bgRunning: 1}
	m.calls.Add([]bgtasks.Call{{Tool: "fetch", Started: now.Add(-45 * time.Second)}})
	width := func(w int) string { m.width = w; return ansi.Strip(m.statusBar(now)) }
	if b := width(120); !strings.Contains(b, "bg: 1 running │ mcp: 1 call 45s") {
		t.Fatalf("120 columns: %q, want the call beside the tasks", b)
	}
	m.calls.Add([]bgtasks.Call{{Tool: "search", Started: now.Add(-5 * time.Second), Stuck: true}})
	if b := width(120); !strings.Contains(b, "mcp: 2 calls 45s · 1 stuck") {
		t.Fatalf("120 columns: %q, want two calls, the oldest's age, one stuck", b)
	}
	// Narrower, the tasks' count (ahead of it at the same priority) gives
	// way first, then the calls shorten, form by form.
	seen := map[string]bool{}
	for w := 120; w >= 8; w-- {
		b := width(w)
		for _, field := range strings.Split(b, "│") {
			field = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(field), "/help")), "…"))
			if !strings.HasPrefix(field, "mcp:") {
				continue
			}
			seen[field] = true
			if field != "mcp: 2 calls 45s · 1 stuck" && strings.Contains(b, "bg:") {
				t.Errorf("%d columns: %q, want the tasks' count gone before the calls shorten", w, b)
			}
		}
	}
	want := map[string]bool{"mcp: 2 calls 45s · 1 stuck": true, "mcp: 2 calls 45s": true, "mcp: 2 45s": true, "mcp: 2": true}
	if !maps.Equal(seen, want) {
		t.Errorf("forms shown as the bar narrows: %v, want %v", seen, want)
	}
	stuck := taskctl.CallStats{}
	stuck.Add([]bgtasks.Call{{Tool: "fetch", Started: now, Stuck: true}})
	m.calls, m.width = stuck, 120
	if b := m.statusBar(now); !strings.Contains(b, styleBarWarn.Render("mcp: 1 call 0s · 1 stuck")) {
		t.Fatalf("a stuck call: %q, want it in the warning style", b)
	}
}

// A call blocked in a server behind `hangdog mcp-proxy` (watched under
// otherTools warn) shows in the shell's status bar and in its server's /bg
// row and detail while it blocks, and leaves the bar once it answers.
func TestShellShowsProxiedCallsInFlight(t *testing.T) {
	p := startPane(t, 140, 24, "HANGDOG_WATCHDOG_OTHERTOOLS=warn")
	p.idle()
	release := testbin.BlockedCall(t, hangdogBin, p.env, p.dir)
	p.wait("the call in the status bar", func(rows []string) bool { return strings.Contains(bar(rows), "mcp: 1 call ") })
	p.typeLine("/bg")
	p.waitFor("[1 call: silent_peer ", "mcp call in flight: silent_peer (id 2) ")
	p.keys("Escape")
	p.idle()
	release()
	p.wait("the call gone from the status bar", func(rows []string) bool {
		return !strings.Contains(bar(rows), "mcp:") && strings.Contains(bar(rows), "bg: 1 running")
	})
}
