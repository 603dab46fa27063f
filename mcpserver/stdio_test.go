package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hangdog/hangdog/bgtasks"
)

const initLine = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// serveLines runs a server over the given input and returns its output
// lines once the input has ended and the server has returned.
func serveLines(t *testing.T, input string) []map[string]any {
	t.Helper()
	reg, err := bgtasks.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(Config{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err = srv.Run(ctx, &StdioTransport{In: strings.NewReader(input), Out: &out})
	if ctx.Err() != nil {
		t.Fatalf("the server did not return once its input ended")
	}
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, mcp.ErrConnectionClosed) {
		t.Fatalf("Run: %v", err)
	}
	var msgs []map[string]any
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("the server wrote a line that is not JSON: %q", sc.Text())
		}
		msgs = append(msgs, m)
	}
	return msgs
}

func byID(msgs []map[string]any, id any) map[string]any {
	for _, m := range msgs {
		if m["id"] == id {
			return m
		}
	}
	return nil
}

func errCode(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return c
}

// A malformed line gets −32700, a JSON value that is no JSON-RPC message
// −32600 (with its id when it has one), and the session goes on: the
// requests after them, sent just before the input closes, are answered.
func TestStdioAnswersMalformedLinesAndFlushesAtEOF(t *testing.T) {
	msgs := serveLines(t, "{bad json\n"+initLine+"\n"+
		`{"jsonrpc":"2.0","id":7,"method":5}`+"\n"+
		`[]`+"\n"+
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+
		`{"jsonrpc":"2.0","id":"list","method":"tools/list"}`+"\n")
	if m := msgs[0]; errCode(m) != codeParseError || m["id"] != nil {
		t.Errorf("first reply %v, want a −32700 with a null id", m)
	}
	if m := byID(msgs, float64(7)); errCode(m) != codeInvalidRequest {
		t.Errorf("reply to a wrongly typed method: %v, want −32600 with id 7", m)
	}
	if m := byID(msgs, "init"); m == nil || m["result"] == nil {
		t.Errorf("no initialize result: %v", msgs)
	}
	if m := byID(msgs, "list"); m == nil || m["result"] == nil {
		t.Errorf("no tools/list result before the session ended: %v", msgs)
	}
}

// FuzzStdioInput puts one arbitrary line between initialize and a ping: the
// server never panics nor stops early, every line it writes is JSON, the
// line gets an answer if it was not a valid message, and the ping after it
// is answered.
func FuzzStdioInput(f *testing.F) {
	for _, seed := range []string{
		`{bad`, `{"jsonrpc":"2.0","id":1,"method":5}`, `{"jsonrpc":"2.0","id":{},"method":"ping"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":"x"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"bash","arguments":{"command":5}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"nosuch","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"bg_logs","arguments":{"id":"` + strings.Repeat("x", 1<<20) + `"}}}`,
		`[1,2]`, `[]`, `null`, `5`, `"str"`, `{}`, `{"jsonrpc":"1.0"}`, "\x00\xff", `{"jsonrpc":"2.0","id":6,"result":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"ping"}}`,
		`{"jsonrpc":"2.0","id":8,"method":"initialize","params":{"protocolVersion":1}}`,
		strings.Repeat("[", 100000),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		line = strings.ReplaceAll(line, "\n", " ")
		msgs := serveLines(t, initLine+"\n"+line+"\n"+`{"jsonrpc":"2.0","id":"last","method":"ping"}`+"\n")
		if m := byID(msgs, "last"); m == nil || m["result"] == nil {
			if !strings.Contains(line, `"last"`) { // the line may have cancelled or spent the id itself
				t.Fatalf("the ping after %.200q was not answered: %v", line, msgs)
			}
		}
	})
}
