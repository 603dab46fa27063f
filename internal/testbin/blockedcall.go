package testbin

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// BlockedCall runs `hangdog mcp-proxy --name stub` (bin, with env, in dir)
// in front of the test stub (internal/testbin/mcpstub), with the client's
// side held by the test, and makes one tools/call that blocks: the stub's
// silent_peer on a 127.0.0.1 peer that accepts and says nothing. release
// lets the peer close, and returns once the call is answered. The test's
// cleanup closes the client's side and waits for the proxy to end.
func BlockedCall(t testing.TB, bin string, env []string, dir string) (release func()) {
	t.Helper()
	stub, err := MCPStub(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	free := make(chan struct{})
	var once sync.Once
	var peers sync.WaitGroup
	peers.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			peers.Go(func() {
				defer conn.Close()
				<-free
			})
		}
	})

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	proxy := exec.CommandContext(ctx, bin, "mcp-proxy", "--name", "stub", "--", stub)
	proxy.Env, proxy.Dir = env, dir
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
	t.Cleanup(func() {
		once.Do(func() { close(free) })
		ln.Close()
		peers.Wait()
		in.Close()
		if err := proxy.Wait(); err != nil {
			t.Errorf("mcp-proxy ended with %v after its client closed its side", err)
		}
		cancel()
	})
	lines := bufio.NewReader(out)
	send := func(line string) {
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
				t.Fatalf("mcp-proxy: no answer to request %s: %v", id, err)
			}
			var m struct{ ID json.RawMessage }
			if json.Unmarshal(b, &m) == nil && string(m.ID) == id {
				return
			}
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
	answer("1")
	send(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"silent_peer","arguments":{"addr":%q}}}`, ln.Addr().String()))
	return func() {
		t.Helper()
		once.Do(func() { close(free) })
		answer("2")
	}
}
