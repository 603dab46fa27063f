//go:build linux

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
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
	stub, err := testbin.MCPStub(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	// Calls are followed, and so listed, when they are watched.
	e.extra = append(e.extra, "HANGDOG_WATCHDOG_OTHERTOOLS=warn")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	// A peer that accepts and says nothing until released.
	release := make(chan struct{})
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				<-release
			}()
		}
	}()

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	proxy := e.command(ctx, "mcp-proxy", "--name", "stub", "--", stub)
	in, err := proxy.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := proxy.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := proxy.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		in.Close()
		if err := proxy.Wait(); err != nil {
			t.Errorf("the proxy ended with %v after its client closed its side", err)
		}
	}()
	lines := bufio.NewReader(out)
	call := func(line string) {
		t.Helper()
		if _, err := io.WriteString(in, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	answer := func(id string) {
		t.Helper()
		for {
			b, err := lines.ReadBytes('\n')
			if err != nil {
				t.Fatalf("no answer to %s: %v", id, err)
			}
			var m struct{ ID json.RawMessage }
			if json.Unmarshal(b, &m) == nil && string(m.ID) == id {
				return
			}
		}
	}
	call(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
	answer("1")
	call(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"silent_peer","arguments":{"addr":%q}}}`, ln.Addr().String()))

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

	close(release)
	answer("2")
	eventually(t, "no call listed once it answered", 10*time.Second, func() bool { return len(ls().Calls) == 0 })
}
