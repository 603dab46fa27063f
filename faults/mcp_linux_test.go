//go:build linux

package faults

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// `hangdog mcp` given a malformed line answers it with −32700 and goes on;
// the requests written before stdin closed are all answered, a bash call
// included, and the server exits 0.
func TestMCPServerSurvivesMalformedInputAndFlushesAtEOF(t *testing.T) {
	w := newWorld(t)
	input := strings.Join([]string{
		`{bad json`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":5}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"bash","arguments":{"command":"sleep 0.3; echo from-bash"}}}`,
	}, "\n") + "\n"
	c := w.command(t.Context(), "mcp")
	c.Stdin = strings.NewReader(input)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	if err := c.Run(); err != nil {
		t.Fatalf("hangdog mcp: %v\nstderr: %s\nstdout: %s", err, errb.String(), out.String())
	}
	replies := map[string]map[string]any{}
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("not JSON: %q", sc.Text())
		}
		if _, ok := m["method"]; ok {
			continue // a notification the server sends by itself (resources/list_changed), not a reply
		}
		b, _ := json.Marshal(m["id"])
		replies[string(b)] = m
	}
	code := func(id string) any {
		e, _ := replies[id]["error"].(map[string]any)
		return e["code"]
	}
	if code("null") != float64(-32700) {
		t.Errorf("no −32700 for the malformed line: %v", replies)
	}
	if replies["1"]["result"] == nil {
		t.Errorf("initialize not answered: %v", replies)
	}
	if code("2") != float64(-32600) {
		t.Errorf("no −32600 for the wrongly typed method: %v", replies["2"])
	}
	if b, _ := json.Marshal(replies["3"]); !strings.Contains(string(b), "from-bash") {
		t.Errorf("the bash call was not answered before exit: %s\nstderr: %s", b, errb.String())
	}
}
