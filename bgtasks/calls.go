package bgtasks

import (
	"fmt"
	"path/filepath"
	"time"
)

// callsFileName, in a proxied MCP server's task directory (Meta.MCPServer
// set), lists the tools/calls in flight on it, as its proxy last wrote them.
const callsFileName = "calls.json"

// Call is one MCP tools/call in flight on a proxied server: what listings
// show of it, as `hangdog mcp-proxy` last recorded it (when the call
// started, ended, or the watchdog's verdict on it changed).
type Call struct {
	Tool string `json:"tool"`
	// RequestID is the call's JSON-RPC id as the client wrote it (JSON
	// text: 7 or "abc").
	RequestID string    `json:"request_id"`
	Started   time.Time `json:"started"`
	// LastProgress is the latest progress notification for it, as of the
	// record (zero: none).
	LastProgress time.Time `json:"last_progress,omitzero"`
	// Verdict is the watchdog's latest on it (progressing, waiting, stuck,
	// looping), "" before its first check or when calls are not watched.
	Verdict string `json:"verdict,omitempty"`
	// Stuck: judged stuck, and warned about or aborted (otherTools).
	Stuck bool `json:"stuck,omitempty"`
}

// CallsPath is task id's record of its calls in flight.
func (r *Registry) CallsPath(id string) string {
	return filepath.Join(r.taskDir(id), callsFileName)
}

// WriteCalls replaces task id's calls in flight, atomically: a reader sees
// the old list or the new one. Its writer is the task's proxy alone.
func (r *Registry) WriteCalls(id string, calls []Call) error {
	if calls == nil {
		calls = []Call{}
	}
	if err := writeJSONAtomic(r.CallsPath(id), calls); err != nil {
		return fmt.Errorf("record the calls in flight of %s: %w", id, err)
	}
	return nil
}

// loadCalls fills t.Calls for a running proxied server. Nothing recorded
// yet, or a record that cannot be read, is no calls: the list is a view of
// the proxy's memory, never a reason to call the task damaged.
func loadCalls(t *Task) {
	if t.MCPServer == "" || t.Result != nil {
		return
	}
	var calls []Call
	if readJSON(filepath.Join(t.Dir, callsFileName), &calls) == nil {
		t.Calls = calls
	}
}
