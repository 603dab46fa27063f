package mcpproxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The methods the proxy reads. The SDK keeps its names unexported.
const (
	methodCallTool      = "tools/call"
	methodCancelled     = "notifications/cancelled"
	methodProgress      = "notifications/progress"
	methodLoggerMessage = "notifications/message"
)

// envelope is the part of a JSON-RPC message the proxy reads. The message
// itself is relayed as it came; this is only looked at.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Name string `json:"name"` // tools/call
		Meta struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
		RequestID     json.RawMessage `json:"requestId"`     // notifications/cancelled
		ProgressToken json.RawMessage `json:"progressToken"` // notifications/progress
		Progress      float64         `json:"progress"`
	} `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// peek reads what the proxy needs of one line. ok is false for anything
// it does not follow (a batch, a line that is not a JSON object, params
// that are not an object): such lines are relayed and otherwise ignored.
func peek(line []byte) (envelope, bool) {
	var m envelope
	b := bytes.TrimLeft(line, " \t\r")
	if len(b) == 0 || b[0] != '{' {
		return m, false
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, false
	}
	return m, true
}

// isResponse: an answer to a request, which has an id and no method.
func (m envelope) isResponse() bool {
	return m.Method == "" && idKey(m.ID) != "" && (m.Result != nil || m.Error != nil)
}

// isRequest: a request, which has a method and an id (a notification has
// none).
func (m envelope) isRequest() bool { return m.Method != "" && idKey(m.ID) != "" }

// idKey names a JSON-RPC id (or a progress token, also a string or a
// number) so that the same value spelled differently (1 and 1.0) is one
// key, and a string is never taken for a number. "" for none or null.
func idKey(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return ""
	}
	switch v := v.(type) {
	case string:
		return "s" + v
	case json.Number:
		// An integer as written (a float64 would merge big ones), any
		// other spelling by its value (1.0 and 1e0 are 1).
		if !strings.ContainsAny(v.String(), ".eE") {
			return "n" + v.String()
		}
		if f, err := v.Float64(); err == nil {
			return "n" + strconv.FormatFloat(f, 'f', -1, 64)
		}
		return "n" + v.String()
	}
	return ""
}

// line encodes one message the proxy writes itself, as one line.
func line(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode message: %w", err)
	}
	return append(b, '\n'), nil
}

type notification struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result"`
}

// rawValue is a progress token or request id as it came, written back as
// it came.
type rawValue json.RawMessage

func (r rawValue) MarshalJSON() ([]byte, error) { return r, nil }

func cancelledLine(id json.RawMessage, reason string) ([]byte, error) {
	return line(notification{JSONRPC: "2.0", Method: methodCancelled, Params: &mcp.CancelledParams{RequestID: rawValue(id), Reason: reason}})
}

func errorResultLine(id json.RawMessage, text string) ([]byte, error) {
	return line(response{JSONRPC: "2.0", ID: id, Result: &mcp.CallToolResult{
		Content: []mcp.Content{&mcp.TextContent{Text: text}},
		IsError: true,
	}})
}

func progressLine(token json.RawMessage, progress float64, msg string) ([]byte, error) {
	return line(notification{JSONRPC: "2.0", Method: methodProgress, Params: &mcp.ProgressNotificationParams{
		ProgressToken: rawValue(token), Progress: progress, Message: msg,
	}})
}

// logParams is a notifications/message's params. The SDK's type is
// deprecated with logging itself (protocol 2026-07-28); the clients of the
// versions before still show it, and it is the one way to tell a client of
// a call that has no progress token.
type logParams struct {
	Level  string `json:"level"`
	Logger string `json:"logger"`
	Data   string `json:"data"`
}

func logLine(msg string) ([]byte, error) {
	return line(notification{JSONRPC: "2.0", Method: methodLoggerMessage, Params: logParams{Level: "warning", Logger: "hangdog", Data: msg}})
}

// withWarning is a tools/call response with a text item carrying warning
// appended to its result's content. A response that is an error, or whose
// result has no content list, is returned as it came: there is nowhere to
// put the warning the client would show.
func withWarning(resp []byte, warning string) []byte {
	var msg map[string]json.RawMessage
	if err := json.Unmarshal(resp, &msg); err != nil || msg["result"] == nil {
		return resp
	}
	var result map[string]json.RawMessage
	if err := json.Unmarshal(msg["result"], &result); err != nil {
		return resp
	}
	var content []json.RawMessage
	if err := json.Unmarshal(result["content"], &content); err != nil {
		return resp
	}
	item, err := json.Marshal(&mcp.TextContent{Text: warning})
	if err != nil {
		return resp
	}
	content = append(content, item)
	var errs [3]error
	result["content"], errs[0] = json.Marshal(content)
	msg["result"], errs[1] = json.Marshal(result)
	var out []byte
	out, errs[2] = json.Marshal(msg)
	for _, err := range errs {
		if err != nil {
			return resp
		}
	}
	return append(out, '\n')
}
