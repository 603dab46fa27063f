package mcpproxy

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/supervisor/watchdog"
)

// call is one tools/call in flight.
type call struct {
	key     string          // idKey of its id
	id      json.RawMessage // as the client wrote it, for the answers the proxy writes
	tool    string
	token   json.RawMessage // its progress token, or nil
	started time.Time
	// since is the latest sign of life: the call's start, its latest
	// progress notification, or the client's answer to the latest request
	// the server sent it. The call's watch counts from there.
	since        time.Time
	progress     float64 // the latest progress the server reported
	progressSeen bool
	lastProgress time.Time // when it came
	verdict      string    // the watchdog's latest status for it, as listings show it
	warned       string    // the warning given, appended to its result
	acted        bool      // warned or aborted: told once

	// Owned by the watch loop alone.
	watch      *watchdog.Watch
	watchSince time.Time // the since its watch was made for
}

// maxAborted bounds the ids of aborted calls kept to drop their late
// answers: a server that never answers them must not grow the proxy.
const maxAborted = 1024

// callTable is what the proxy knows of the calls in flight. Its methods are
// called under proxy.mu.
type callTable struct {
	live    map[string]*call // by idKey
	tokens  map[string]*call // by idKey of the progress token
	aborted map[string]bool  // answered by the proxy; the server's late answer is dropped
	order   []string         // aborted keys, oldest first
	// asking counts the server's requests to the client not answered yet
	// (sampling, elicitation, roots): a server waiting for the client is not
	// stuck.
	asking map[string]bool
	// dirty: a call started or ended, or its verdict changed, since the
	// calls in flight were last handed to their recorder (proxy.recordCalls).
	dirty bool
}

func newCallTable() callTable {
	return callTable{live: map[string]*call{}, tokens: map[string]*call{}, aborted: map[string]bool{}, asking: map[string]bool{}}
}

func (t *callTable) start(m envelope, now time.Time) {
	key := idKey(m.ID)
	t.forget(key)
	delete(t.aborted, key) // a reused id is a new call
	c := &call{key: key, id: append(json.RawMessage(nil), m.ID...), tool: m.Params.Name, started: now, since: now}
	if tk := idKey(m.Params.Meta.ProgressToken); tk != "" {
		c.token = append(json.RawMessage(nil), m.Params.Meta.ProgressToken...)
		t.tokens[tk] = c
	}
	t.live[key] = c
	t.dirty = true
}

// forget stops watching a call without answering it.
func (t *callTable) forget(key string) {
	if c, ok := t.live[key]; ok {
		delete(t.live, key)
		t.dirty = true
		if tk := idKey(c.token); tk != "" && t.tokens[tk] == c {
			delete(t.tokens, tk)
		}
	}
}

// finish takes the call a response answers out of the table: drop is true
// when the proxy answered it already, warning is what to append to it.
func (t *callTable) finish(key string) (drop bool, warning string) {
	if t.aborted[key] {
		delete(t.aborted, key)
		return true, ""
	}
	c, ok := t.live[key]
	if !ok {
		return false, ""
	}
	t.forget(key)
	return false, c.warned
}

// abort takes a call out of the table as answered by the proxy. ok is
// false when it was answered (or given up) meanwhile.
func (t *callTable) abort(c *call) bool {
	if t.live[c.key] != c {
		return false
	}
	t.forget(c.key)
	t.aborted[c.key] = true
	t.order = append(t.order, c.key)
	if len(t.order) > maxAborted {
		delete(t.aborted, t.order[0])
		t.order = t.order[1:]
	}
	return true
}

func (t *callTable) progress(token string, progress float64, now time.Time) {
	if c, ok := t.tokens[token]; ok {
		c.since, c.progress, c.progressSeen, c.lastProgress = now, progress, true, now
	}
}

// judged notes the watchdog's latest status for a call still in flight.
func (t *callTable) judged(c *call, status string) {
	if t.live[c.key] == c && c.verdict != status {
		c.verdict, t.dirty = status, true
	}
}

// takeDirty reports whether the calls in flight changed since it was last
// asked.
func (t *callTable) takeDirty() bool {
	d := t.dirty
	t.dirty = false
	return d
}

// record is the calls in flight as listings show them, oldest first.
func (t *callTable) record() []bgtasks.Call {
	out := make([]bgtasks.Call, 0, len(t.live))
	for _, c := range t.live {
		out = append(out, bgtasks.Call{Tool: c.tool, RequestID: string(c.id), Started: c.started,
			LastProgress: c.lastProgress, Verdict: c.verdict, Stuck: c.acted})
	}
	slices.SortFunc(out, func(a, b bgtasks.Call) int { return a.Started.Compare(b.Started) })
	return out
}

// asked notes a request the server sent the client.
func (t *callTable) asked(key string, now time.Time) {
	t.asking[key] = true
	t.touchAll(now)
}

// answered notes the client's answer to one.
func (t *callTable) answered(key string, now time.Time) {
	if t.asking[key] {
		delete(t.asking, key)
		t.touchAll(now)
	}
}

func (t *callTable) touchAll(now time.Time) {
	for _, c := range t.live {
		c.since = now
	}
}

// watched lists the calls to judge now. While the server waits for the
// client's answer, every call's clock is held at now.
func (t *callTable) watched(now time.Time) []*call {
	if len(t.asking) > 0 {
		t.touchAll(now)
	}
	out := make([]*call, 0, len(t.live))
	for _, c := range t.live {
		if !c.acted {
			out = append(out, c)
		}
	}
	return out
}
