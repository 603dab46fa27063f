//go:build linux

package claudecode

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"time"
)

// turn is one scripted reply of the model: a tool call, or a final text.
type turn struct {
	Tool  string         // "Bash" (sent as mcp__hangdog__bash in MCP mode)
	Input map[string]any // the tool's input; ByMode overrides it per mode
	// ByMode replaces Input in the named mode (plain, hook, mcp).
	ByMode map[string]map[string]any
	Text   string
	// Delay holds the reply back, as a slow model would: a turn in
	// progress, for a test to interrupt.
	Delay time.Duration
}

// result is what came back for one tool call: the tool_result text a model
// sees, and how long the call took from the reply that asked for it to the
// request that carried its result.
type result struct {
	Turn    int
	ID      string
	Text    string
	IsError bool
	Wall    time.Duration
}

// api is the stand-in for the Messages API: it answers POST /v1/messages
// with the scenario's next turn as a server-sent event stream, as the real
// API does, and records every tool_result and every other text block
// Claude Code puts in its requests (hook context, system reminders, task
// notifications, a Stop hook's reason).
type api struct {
	srv   *httptest.Server
	mode  string
	turns []turn

	mu       sync.Mutex
	sent     map[string]time.Time // tool_use id -> when the reply carrying it was sent
	sentTurn map[string]int
	seen     map[string]bool
	results  []result
	texts    []string    // text blocks of user/system messages after the first request
	textAt   []time.Time // when the request carrying each of texts came
	finalAt  time.Time   // when the last end_turn reply was sent
	requests int
	debug    string // a file to append every request body to ($HANGDOG_E2E_DEBUG)
}

func newAPI(mode string, turns []turn, debug string) *api {
	a := &api{mode: mode, turns: turns, debug: debug, sent: map[string]time.Time{}, sentTurn: map[string]int{}, seen: map[string]bool{}}
	a.srv = httptest.NewServer(http.HandlerFunc(a.serve))
	return a
}

type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
	Content   json.RawMessage `json:"content"`
}

// blocks decodes a message's content: a string or a list of blocks.
func blocks(raw json.RawMessage) []block {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []block{{Type: "text", Text: s}}
	}
	var bs []block
	json.Unmarshal(raw, &bs)
	return bs
}

// text is the text of a tool_result's content.
func text(raw json.RawMessage) string {
	var parts []string
	for _, b := range blocks(raw) {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func (a *api) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, "/v1/messages") || strings.HasSuffix(r.URL.Path, "count_tokens") {
		w.Header().Set("Content-Type", "application/json")
		if strings.HasSuffix(r.URL.Path, "count_tokens") {
			fmt.Fprint(w, `{"input_tokens": 1000}`)
			return
		}
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"type":"error","error":{"type":"not_found_error","message":"stand-in: no such endpoint"}}`)
		return
	}
	var req struct {
		Model    string            `json:"model"`
		Messages []message         `json:"messages"`
		Tools    []json.RawMessage `json:"tools"`
	}
	json.Unmarshal(body, &req)
	now := time.Now()
	if a.debug != "" {
		if f, err := os.OpenFile(a.debug, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
			f.Write(append(body, '\n'))
			f.Close()
		}
	}
	if len(req.Tools) == 0 { // a side request (a title, a summary): not the script's
		a.stream(w, req.Model, []map[string]any{{"type": "text", "text": "Scripted session"}}, "end_turn")
		return
	}
	n, last := 0, -1
	for i, m := range req.Messages {
		if m.Role == "assistant" {
			n, last = n+1, i
		}
	}
	a.record(req.Messages, last, now)
	var reply turn
	if n < len(a.turns) {
		reply = a.turns[n]
	} else {
		reply = turn{Text: "(script exhausted)"}
	}
	if reply.Delay > 0 {
		select {
		case <-time.After(reply.Delay):
		case <-r.Context().Done():
			return // the client went away mid-turn
		}
	}
	if reply.Tool == "" {
		a.mu.Lock()
		a.finalAt = time.Now()
		a.mu.Unlock()
		a.stream(w, req.Model, []map[string]any{{"type": "text", "text": reply.Text}}, "end_turn")
		return
	}
	name, input := reply.Tool, reply.Input
	if in, ok := reply.ByMode[a.mode]; ok {
		input = in
	} else if in, ok := reply.ByMode["hook"]; ok && a.mode == "plugin" {
		input = in // the plugin is the hook recipe, installed
	}
	if (a.mode == "mcp" || a.mode == "mcp-alone") && name == "Bash" {
		name = "mcp__hangdog__bash"
		m := map[string]any{"command": input["command"]}
		if ms, ok := input["timeout"].(int); ok {
			m["timeout_seconds"] = ms / 1000
		}
		if input["run_in_background"] == true {
			m["run_in_background"] = true
		}
		input = m
	}
	if a.mode == "nullmcp" && name == "Bash" { // the stub's quick tool echoes the command and runs nothing
		name, input = "mcp__stub__quick", map[string]any{"text": input["command"]}
	}
	id := fmt.Sprintf("toolu_standin_%02d_%d", n, now.UnixNano()%1e9)
	a.mu.Lock()
	a.sent[id] = time.Now()
	a.sentTurn[id] = n
	a.mu.Unlock()
	a.stream(w, req.Model, []map[string]any{{"type": "tool_use", "id": id, "name": name, "input": input}}, "tool_use")
}

// record keeps the tool_results and other text that came after the last
// assistant message, each once.
func (a *api) record(msgs []message, last int, now time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.requests++
	if last < 0 {
		return // the first request: the prompt
	}
	for i := last + 1; i < len(msgs); i++ {
		for j, b := range blocks(msgs[i].Content) {
			switch b.Type {
			case "tool_result":
				if a.seen[b.ToolUseID] {
					continue
				}
				a.seen[b.ToolUseID] = true
				a.results = append(a.results, result{Turn: a.sentTurn[b.ToolUseID], ID: b.ToolUseID, Text: text(b.Content),
					IsError: b.IsError, Wall: now.Sub(a.sent[b.ToolUseID])})
			case "text":
				key := fmt.Sprintf("%d/%d/%d", len(msgs), i, j)
				if !a.seen[key] {
					a.seen[key] = true
					a.texts = append(a.texts, b.Text)
					a.textAt = append(a.textAt, now)
				}
			}
		}
	}
}

// stream answers as the Messages API streams: message_start, each block's
// start, deltas and stop, message_delta with the stop reason, message_stop.
func (a *api) stream(w http.ResponseWriter, model string, content []map[string]any, stop string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("request-id", "req_standin")
	fl, _ := w.(http.Flusher)
	ev := func(name string, data map[string]any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
		if fl != nil {
			fl.Flush()
		}
	}
	if model == "" {
		model = "claude-sonnet-4-5"
	}
	ev("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": fmt.Sprintf("msg_standin_%d", time.Now().UnixNano()), "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 100, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}})
	for i, b := range content {
		if b["type"] == "text" {
			ev("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": b["text"]}})
		} else {
			ev("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{
				"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			js, _ := json.Marshal(b["input"])
			for k := 0; k < len(js); k += 40 { // several deltas, as the real API sends
				ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "input_json_delta", "partial_json": string(js[k:min(k+40, len(js))])}})
			}
		}
		ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	ev("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 20}})
	ev("message_stop", map[string]any{"type": "message_stop"})
}

// timedTexts is every text recorded with the time its request came.
func (a *api) timedTexts() (texts []string, at []time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.texts...), append([]time.Time(nil), a.textAt...)
}

func (a *api) snapshot() (results []result, texts []string, finalAt time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]result(nil), a.results...), append([]string(nil), a.texts...), a.finalAt
}
