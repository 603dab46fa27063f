//go:build linux

package mcpproxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/internal/syncbuf"
	"github.com/hangdog/hangdog/internal/testbin"
	"github.com/hangdog/hangdog/settings/watchdogconf"
)

// stubBin is the MCP server written for these tests, built once.
var stubBin string

// The proxy runs in the test process, so the tree it samples is every child
// of the test process: the tests that judge a call run one server at a time
// (none is parallel).
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "hdmcpproxy")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if stubBin, err = testbin.MCPStub(dir); err != nil {
		os.RemoveAll(dir)
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// fastChecks is the watchdog with checks every two seconds: first at 2 s,
// then every 2 s, two agreeing checks to act.
func fastChecks(mode string) watchdogconf.Watchdog {
	cfg := watchdogconf.Default()
	cfg.FirstCheckMin = 2.0 / 60
	cfg.IntervalMin = 2.0 / 60
	cfg.AgreeChecks = 2
	cfg.OtherTools = mode
	return cfg
}

// actWithin is the latest an act may come for cfg: the checks it takes to
// agree, one more check the judge may need to turn (see docs/watchdog.md),
// and a tick.
func actWithin(cfg watchdogconf.Watchdog) time.Duration {
	return cfg.FirstCheck() + time.Duration(cfg.AgreeChecks+1)*cfg.Interval() + 2*checkTick
}

// client is an MCP client talking newline-delimited JSON-RPC by hand, so
// the bytes it receives can be compared.
type client struct {
	t     testing.TB
	in    io.WriteCloser
	lines chan []byte
	mu    sync.Mutex
	got   bytes.Buffer // every line received, in order
	sent  bytes.Buffer // every line sent
	done  chan error   // the proxy's Run, or the server's Wait
}

func newClient(t testing.TB, in io.WriteCloser, out io.Reader) *client {
	c := &client{t: t, in: in, lines: make(chan []byte, 256), done: make(chan error, 1)}
	go func() {
		defer close(c.lines)
		br := bufio.NewReader(out)
		for {
			b, err := br.ReadBytes('\n')
			if len(b) > 0 {
				c.mu.Lock()
				c.got.Write(b)
				c.mu.Unlock()
				c.lines <- b
			}
			if err != nil {
				return
			}
		}
	}()
	return c
}

// proxied starts the proxy in this process, in front of the stub.
func proxied(t *testing.T, cfg watchdogconf.Watchdog, reg *bgtasks.Registry, env ...string) *client {
	t.Helper()
	cin, pin := io.Pipe()
	pout, cout := io.Pipe()
	c := newClient(t, pin, pout)
	var stderr syncbuf.Buffer
	go func() {
		err := Run(context.Background(), Config{
			Name: "stub", Argv: []string{stubBin}, Env: append(os.Environ(), env...),
			Watchdog: cfg, Registry: reg, In: cin, Out: cout, Stderr: &stderr,
		})
		cout.Close()
		c.done <- err
	}()
	t.Cleanup(func() {
		// The client closing its side ends the proxy, which closes the
		// server's stdin and writes the task's result.
		c.close()
		select {
		case err := <-c.done:
			if err != nil {
				t.Errorf("the proxy ended with %v after the client closed its side", err)
			}
		case <-time.After(3*stopGrace + 5*time.Second):
			t.Errorf("the proxy did not end after the client closed its side")
		}
		if t.Failed() || testing.Verbose() {
			t.Logf("proxy stderr:\n%s", stderr.String())
		}
	})
	return c
}

// direct starts the stub with the client on its stdio, no proxy between.
func direct(t *testing.T, env ...string) *client {
	t.Helper()
	cmd := exec.Command(stubBin)
	cmd.Env = append(os.Environ(), env...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, in, out)
	t.Cleanup(func() {
		c.close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	return c
}

func (c *client) close() {
	c.in.Close()
}

func (c *client) send(format string, args ...any) {
	c.t.Helper()
	b := fmt.Appendf(nil, format, args...)
	b = append(b, '\n')
	c.mu.Lock()
	c.sent.Write(b)
	c.mu.Unlock()
	if _, err := c.in.Write(b); err != nil {
		c.t.Fatalf("send %s: %v", b, err)
	}
}

type received struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result *struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	} `json:"result"`
	raw []byte
}

// until reads messages until one satisfies ok, within d, and returns it
// with every message read before it.
func (c *client) until(d time.Duration, what string, ok func(received) bool) (received, []received) {
	c.t.Helper()
	deadline := time.After(d)
	var before []received
	for {
		select {
		case b, open := <-c.lines:
			if !open {
				c.t.Fatalf("waiting for %s: the connection closed", what)
			}
			var m received
			if err := json.Unmarshal(b, &m); err != nil {
				c.t.Fatalf("waiting for %s: bad line %q: %v", what, b, err)
			}
			m.raw = b
			if ok(m) {
				return m, before
			}
			before = append(before, m)
		case <-deadline:
			c.t.Fatalf("no %s within %s; received meanwhile: %d messages", what, d, len(before))
		}
	}
}

// response waits for the response to id.
func (c *client) response(id string, d time.Duration) (received, []received) {
	c.t.Helper()
	return c.until(d, "response to "+id, func(m received) bool { return string(m.ID) == id && m.Method == "" })
}

func (c *client) handshake() {
	c.t.Helper()
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
	c.response("1", 10*time.Second)
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	c.response("2", 10*time.Second)
}

func (c *client) received() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.got.Bytes())
}

func (c *client) sentBytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.sent.Bytes())
}

func text(m received) string {
	if m.Result == nil {
		return ""
	}
	var parts []string
	for _, c := range m.Result.Content {
		parts = append(parts, c.Text)
	}
	return strings.Join(parts, "\n")
}

// silentPeer listens on 127.0.0.1 and accepts connections that are never
// answered, until answer is called: then each is sent a line and closed.
type silentPeer struct {
	addr   string
	answer func()
}

func newSilentPeer(t *testing.T) silentPeer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	var once sync.Once
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				<-release
				conn.Write([]byte("HTTP/1.0 200 OK\r\n\r\nlate answer\n"))
			}()
		}
	}()
	t.Cleanup(func() {
		once.Do(func() { close(release) })
		ln.Close()
	})
	return silentPeer{addr: ln.Addr().String(), answer: func() { once.Do(func() { close(release) }) }}
}

// recordPath is a file the stub appends every line it receives to.
func recordPath(t *testing.T) (path, env string) {
	path = filepath.Join(t.TempDir(), "received.jsonl")
	return path, "MCPSTUB_RECORD=" + path
}

// waitFile polls path until it contains want, within d.
func waitFile(t *testing.T, path, want string, d time.Duration) string {
	t.Helper()
	end := time.Now().Add(d)
	for {
		b, _ := os.ReadFile(path)
		if strings.Contains(string(b), want) {
			return string(b)
		}
		if time.Now().After(end) {
			t.Fatalf("%s never held %q within %s; it holds:\n%s", path, want, d, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
