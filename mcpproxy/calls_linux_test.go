//go:build linux

package mcpproxy

import (
	"strings"
	"testing"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/settings/watchdogconf"
)

// A call in flight is listed on the server's task, as `hangdog bg ls`
// reads it: its tool, id and start while it blocks, then judged stuck once
// warned of; once it ends it is gone. A quick call leaves nothing listed.
func TestCallsInFlightAreListed(t *testing.T) {
	reg := newRegistry(t)
	cfg := fastChecks(watchdogconf.OtherToolsWarn)
	c := proxied(t, cfg, reg)
	peer := newSilentPeer(t)
	c.handshake()
	task := runningTask(t, reg)

	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"quick","arguments":{"text":"q"}}}`)
	c.response("2", 10*time.Second)
	before := time.Now()
	c.send(`{"jsonrpc":"2.0","id":"s-3","method":"tools/call","params":{"name":"silent_peer","arguments":{"addr":%q}}}`, peer.addr)
	got := waitCalls(t, reg, task.ID, 5*time.Second, "the blocked call listed", func(cs []bgtasks.Call) bool { return len(cs) == 1 })
	if got[0].Tool != "silent_peer" || got[0].RequestID != `"s-3"` || got[0].Started.Before(before.Add(-time.Second)) || got[0].Stuck {
		t.Errorf("the call listed: %+v, want silent_peer, id \"s-3\", started now, not yet stuck", got[0])
	}
	got = waitCalls(t, reg, task.ID, actWithin(cfg)+5*time.Second, "the call judged stuck", func(cs []bgtasks.Call) bool { return len(cs) == 1 && cs[0].Stuck })
	if got[0].Verdict == "" {
		t.Errorf("the stuck call has no verdict: %+v", got[0])
	}
	// `hangdog events` shows its warning: the tool, the server, how long.
	if evs := warnings(t, reg); len(evs) != 1 || !strings.Contains(evs[0].Reason, "silent_peer on the MCP server stub has run ") || evs[0].DurationMS < 1000 {
		t.Errorf("warning events: %+v, want one naming the tool, the server and how long it ran", evs)
	}
	peer.answer()
	c.response(`"s-3"`, 10*time.Second)
	waitCalls(t, reg, task.ID, 5*time.Second, "no call listed once it answered", func(cs []bgtasks.Call) bool { return len(cs) == 0 })
}

// waitCalls polls the task's listing until its calls satisfy ok.
func waitCalls(t *testing.T, reg *bgtasks.Registry, id string, d time.Duration, what string, ok func([]bgtasks.Call) bool) []bgtasks.Call {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		task, err := reg.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		if ok(task.Calls) {
			return task.Calls
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s within %s: calls %+v", what, d, task.Calls)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
