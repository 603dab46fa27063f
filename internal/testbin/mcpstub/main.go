// Command mcpstub is a stdio MCP server written for hangdog's tests of the
// MCP proxy (package mcpproxy) and of a real client driving it. It speaks
// newline-delimited JSON-RPC by hand, so every byte it writes is fixed by
// its input: two runs given the same calls answer the same bytes, which a
// transcript diff needs.
//
// Its tools: quick answers at once; progress sends a progress notification
// every second for `seconds` (default 20) and then answers; silent_peer
// connects to `addr` (a listener that accepts and never answers), sends a
// request and waits for the answer forever; deadlock blocks its goroutine
// on a mutex it already holds; busy computes for `seconds` (default 20),
// sending nothing, and then answers. With MCPSTUB_RECORD set, every line it
// receives is appended to that file (the tests read the cancellations there).
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"
)

type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
}

type callParams struct {
	Name      string `json:"name"`
	Arguments struct {
		Seconds *int   `json:"seconds"`
		Addr    string `json:"addr"`
		Text    string `json:"text"`
	} `json:"arguments"`
	Meta struct {
		ProgressToken json.RawMessage `json:"progressToken"`
	} `json:"_meta"`
}

type server struct {
	mu     sync.Mutex // one line at a time on stdout
	out    io.Writer
	record *os.File

	stuck sync.Mutex // the deadlock tool locks it twice
}

func main() {
	s := &server{out: os.Stdout}
	if path := os.Getenv("MCPSTUB_RECORD"); path != "" {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			fmt.Fprintln(os.Stderr, "mcpstub:", err)
			os.Exit(2)
		}
		s.record = f
	}
	in := bufio.NewReader(os.Stdin)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			s.handle(line)
		}
		if err != nil {
			return
		}
	}
}

func (s *server) handle(line []byte) {
	if s.record != nil {
		s.record.Write(line)
	}
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		fmt.Fprintln(os.Stderr, "mcpstub: bad line:", err)
		return
	}
	switch m.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(m.Params, &p)
		if p.ProtocolVersion == "" {
			p.ProtocolVersion = "2025-06-18"
		}
		s.reply(m.ID, map[string]any{
			"protocolVersion": p.ProtocolVersion,
			"capabilities":    map[string]any{"tools": map[string]any{}},
			"serverInfo":      map[string]any{"name": "mcpstub", "version": "1.0.0"},
		})
	case "tools/list":
		s.reply(m.ID, map[string]any{"tools": tools})
	case "ping":
		s.reply(m.ID, map[string]any{})
	case "tools/call":
		var p callParams
		if err := json.Unmarshal(m.Params, &p); err != nil {
			s.send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32602, "message": err.Error()}})
			return
		}
		go s.call(m.ID, p)
	case "":
		// A response to a request of ours: we send none.
	default:
		if len(m.ID) > 0 {
			s.send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "no method " + m.Method}})
		}
	}
}

var tools = []map[string]any{
	{"name": "quick", "description": "Answers at once.", "inputSchema": object(map[string]any{"text": map[string]any{"type": "string"}})},
	{"name": "progress", "description": "Sends progress every second for `seconds`, then answers.", "inputSchema": object(map[string]any{"seconds": map[string]any{"type": "integer"}})},
	{"name": "silent_peer", "description": "Waits for an answer from addr, forever.", "inputSchema": object(map[string]any{"addr": map[string]any{"type": "string"}})},
	{"name": "deadlock", "description": "Deadlocks.", "inputSchema": object(map[string]any{})},
	{"name": "busy", "description": "Computes for `seconds`, then answers.", "inputSchema": object(map[string]any{"seconds": map[string]any{"type": "integer"}})},
}

func object(props map[string]any) map[string]any {
	return map[string]any{"type": "object", "properties": props}
}

func (s *server) call(id json.RawMessage, p callParams) {
	switch p.Name {
	case "quick":
		s.reply(id, text("quick: "+p.Arguments.Text))
	case "progress":
		n := 20
		if p.Arguments.Seconds != nil {
			n = *p.Arguments.Seconds
		}
		for i := 1; i <= n; i++ {
			time.Sleep(time.Second)
			if len(p.Meta.ProgressToken) > 0 {
				s.notify("notifications/progress", struct {
					Token    json.RawMessage `json:"progressToken"`
					Progress int             `json:"progress"`
					Total    int             `json:"total"`
					Message  string          `json:"message"`
				}{p.Meta.ProgressToken, i, n, fmt.Sprintf("step %d of %d", i, n)})
			}
		}
		s.reply(id, text(fmt.Sprintf("progress: done after %d steps", n)))
	case "silent_peer":
		conn, err := net.Dial("tcp", p.Arguments.Addr)
		if err != nil {
			s.reply(id, errorText("dial: "+err.Error()))
			return
		}
		defer conn.Close()
		if _, err := conn.Write([]byte("GET / HTTP/1.0\r\n\r\n")); err != nil {
			s.reply(id, errorText("write: "+err.Error()))
			return
		}
		b, err := io.ReadAll(conn)
		s.reply(id, text(fmt.Sprintf("silent_peer: read %d bytes, %v", len(b), err)))
	case "busy":
		n := 20
		if p.Arguments.Seconds != nil {
			n = *p.Arguments.Seconds
		}
		end := time.Now().Add(time.Duration(n) * time.Second)
		x := uint64(1)
		for time.Now().Before(end) {
			for range 1 << 16 {
				x = x*6364136223846793005 + 1442695040888963407
			}
		}
		s.reply(id, text(fmt.Sprintf("busy: done (%d)", x%10)))
	case "deadlock":
		s.stuck.Lock()
		s.stuck.Lock() // never returns: the lock is ours already
		s.reply(id, text("deadlock: unreachable"))
	default:
		s.reply(id, errorText("no tool "+p.Name))
	}
}

func text(t string) map[string]any {
	return map[string]any{"content": []any{map[string]any{"type": "text", "text": t}}}
}

func errorText(t string) map[string]any {
	r := text(t)
	r["isError"] = true
	return r
}

// reply and notify write their fields in protocol order (jsonrpc first),
// which no map-based re-encoding keeps: a proxy that re-encoded what it
// relays would be caught by a transcript diff.
func (s *server) reply(id json.RawMessage, result any) {
	s.send(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  any             `json:"result"`
	}{"2.0", id, result})
}

func (s *server) notify(method string, params any) {
	s.send(struct {
		JSONRPC string `json:"jsonrpc"`
		Method  string `json:"method"`
		Params  any    `json:"params"`
	}{"2.0", method, params})
}

func (s *server) send(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcpstub: encode:", err)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.out.Write(append(b, '\n'))
}
