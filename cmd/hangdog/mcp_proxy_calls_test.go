//go:build linux

package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hangdog/hangdog/internal/testbin"
)

// A tools/call blocked in a server behind `hangdog mcp-proxy` (watched:
// otherTools warn) is listed by
// `hangdog bg ls` (--json: in the server's task's "calls"; the table: at
// the head of its COMMAND) while it blocks, and gone once it answers.
func TestBgLsListsProxiedCallsInFlight(t *testing.T) {
	e := newEnv(t)
	// Calls are followed, and so listed, when they are watched.
	e.extra = append(e.extra, "HANGDOG_WATCHDOG_OTHERTOOLS=warn")
	release := testbin.BlockedCall(t, hangdogBin, e.environ(), filepath.Dir(e.home))

	type listed struct {
		ID        string `json:"id"`
		MCPServer string `json:"mcp_server"`
		Calls     []struct {
			Tool      string    `json:"tool"`
			RequestID string    `json:"request_id"`
			Started   time.Time `json:"started"`
		} `json:"calls"`
	}
	ls := func() listed {
		t.Helper()
		r := e.run("bg", "ls", "--all", "--json")
		var tasks []listed
		if err := json.Unmarshal([]byte(r.stdout), &tasks); err != nil || len(tasks) != 1 {
			t.Fatalf("bg ls --json: %v, %q; want the server's task", err, r.stdout)
		}
		return tasks[0]
	}
	var got listed
	eventually(t, "the blocked call listed by bg ls --json", 10*time.Second, func() bool {
		got = ls()
		return len(got.Calls) == 1
	})
	if c := got.Calls[0]; got.MCPServer != "stub" || c.Tool != "silent_peer" || c.RequestID != "2" || time.Since(c.Started) > time.Minute {
		t.Errorf("bg ls --json: %+v, want server stub with its silent_peer call, id 2, started now", got)
	}
	if r := e.run("bg", "ls", "--all"); !strings.Contains(r.stdout, "[1 call: silent_peer ") {
		t.Errorf("bg ls:\n%s\nwant the call at the head of the server's command", r.stdout)
	}

	release()
	eventually(t, "no call listed once it answered", 10*time.Second, func() bool { return len(ls().Calls) == 0 })
}
