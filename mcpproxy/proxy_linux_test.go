//go:build linux

package mcpproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/settings/watchdogconf"
	"github.com/hangdog/hangdog/taskctl"
)

// The quick tool and a 20 s progress call, direct and through a watching
// proxy side by side: the client receives the same bytes, and the server
// receives what the client sent, byte for byte. The progress call outlasts
// many checks and is never touched.
func TestRelayIsByteForByte(t *testing.T) {
	reg := newRegistry(t)
	directRec, directEnv := recordPath(t)
	proxyRec, proxyEnv := recordPath(t)
	dc := direct(t, directEnv)
	pc := proxied(t, fastChecks(watchdogconf.OtherToolsAbort), reg, proxyEnv)
	script := func(c *client) {
		c.handshake()
		c.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"quick","arguments":{"text":"one \u00e9\"two\""}}}`)
		c.response("3", 10*time.Second)
		c.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"progress","arguments":{"seconds":20},"_meta":{"progressToken":"p-1"}}}`)
		m, before := c.response("4", 60*time.Second)
		if len(before) != 20 || m.Result == nil || m.Result.IsError {
			t.Errorf("progress call: %d messages before its result %s, want its 20 progress notifications", len(before), m.raw)
		}
		c.send(`{"jsonrpc":"2.0","id":"five","method":"tools/call","params":{"name":"quick","arguments":{}}}`)
		c.response(`"five"`, 10*time.Second)
	}
	var wg sync.WaitGroup
	wg.Go(func() { script(dc) })
	wg.Go(func() { script(pc) })
	wg.Wait()
	if t.Failed() {
		return
	}
	if d, p := dc.received(), pc.received(); !bytes.Equal(d, p) {
		t.Errorf("the client received different bytes through the proxy:\ndirect:\n%s\nproxied:\n%s", d, p)
	}
	got := waitFile(t, proxyRec, `"id":"five"`, 5*time.Second)
	if sent := pc.sentBytes(); got != string(sent) {
		t.Errorf("the server received different bytes through the proxy:\nsent:\n%s\nreceived:\n%s", sent, got)
	}
	if d := waitFile(t, directRec, `"id":"five"`, 5*time.Second); d != got {
		t.Errorf("the server received different bytes direct and proxied:\ndirect:\n%s\nproxied:\n%s", d, got)
	}
	if evs, err := reg.Events(0); err != nil || len(evs) != 0 {
		t.Errorf("events after calls that all answered: %+v (%v), want none", evs, err)
	}
}

// A call stuck on a silent peer (c) or in a deadlock (d), under abort-turn:
// answered with an error that says what was seen, within the configured
// checks; the server told to cancel it; one warning event; the next call
// served; the server's late answer (once the peer answers) dropped.
func TestStuckCallIsAborted(t *testing.T) {
	for _, tc := range []struct{ tool, seen string }{
		{"silent_peer", "silent"},
		{"deadlock", "no CPU"},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			reg := newRegistry(t)
			rec, env := recordPath(t)
			cfg := fastChecks(watchdogconf.OtherToolsAbort)
			c := proxied(t, cfg, reg, env)
			peer := newSilentPeer(t)
			c.handshake()
			task := runningTask(t, reg)
			start := time.Now()
			c.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":%q,"arguments":{"addr":%q}}}`, tc.tool, peer.addr)
			m, _ := c.response("3", actWithin(cfg)+10*time.Second)
			took := time.Since(start)
			if took > actWithin(cfg) {
				t.Errorf("aborted after %s, want within %s (first check %s, then every %s, %d to agree)",
					took, actWithin(cfg), cfg.FirstCheck(), cfg.Interval(), cfg.AgreeChecks)
			}
			msg := text(m)
			if m.Result == nil || !m.Result.IsError || !strings.Contains(msg, "aborted this call of "+tc.tool) || !strings.Contains(msg, tc.seen) {
				t.Fatalf("the aborted call's answer %s: want an error result naming %s and saying %q", m.raw, tc.tool, tc.seen)
			}
			t.Logf("after %s: %s", took.Round(time.Millisecond), msg)
			waitFile(t, rec, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":`, 5*time.Second)
			if !strings.Contains(waitFile(t, rec, "notifications/cancelled", time.Second), `"requestId":3}`) {
				t.Errorf("the server was not told to cancel request 3")
			}

			peer.answer()
			time.Sleep(500 * time.Millisecond) // the silent_peer call answers late now
			c.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"quick","arguments":{"text":"after"}}}`)
			m, before := c.response("4", 10*time.Second)
			if text(m) != "quick: after" {
				t.Errorf("the next call got %s", m.raw)
			}
			for _, b := range before {
				t.Errorf("before the next call's answer the client got %s; the late answer must be dropped", b.raw)
			}
			evs := warnings(t, reg)
			if len(evs) != 1 || evs[0].TaskID != task.ID || !strings.Contains(evs[0].Reason, "aborted this call of "+tc.tool) {
				t.Errorf("events: %+v, want one warning for %s naming the call", evs, task.ID)
			}
		})
	}
}

// Under warn: a call with a progress token stuck on a silent peer gets a
// progress notification naming why, and its result, once the peer answers,
// carries the warning; a deadlocked call without one gets a log message,
// once, and the next call is served.
func TestStuckCallIsWarned(t *testing.T) {
	cfg := fastChecks(watchdogconf.OtherToolsWarn)
	t.Run("silent_peer", func(t *testing.T) {
		reg := newRegistry(t)
		c := proxied(t, cfg, reg)
		peer := newSilentPeer(t)
		c.handshake()
		start := time.Now()
		c.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"silent_peer","arguments":{"addr":%q},"_meta":{"progressToken":7}}}`, peer.addr)
		w, _ := c.until(actWithin(cfg)+10*time.Second, "a progress warning", func(m received) bool { return m.Method == "notifications/progress" })
		if took := time.Since(start); took > actWithin(cfg) {
			t.Errorf("warned after %s, want within %s", took, actWithin(cfg))
		}
		var p struct {
			Token   json.RawMessage `json:"progressToken"`
			Message string          `json:"message"`
		}
		json.Unmarshal(w.Params, &p)
		if string(p.Token) != "7" || !strings.Contains(p.Message, "looks stuck") || !strings.Contains(p.Message, "silent") {
			t.Fatalf("the warning %s: want progress for token 7 saying the call looks stuck on a silent peer", w.raw)
		}
		peer.answer()
		m, _ := c.response("3", 10*time.Second)
		if m.Result == nil || m.Result.IsError || len(m.Result.Content) != 2 || m.Result.Content[1].Text != p.Message {
			t.Errorf("the warned call's result %s: want the server's content and the warning after it", m.raw)
		}
		if evs := warnings(t, reg); len(evs) != 1 {
			t.Errorf("events: %+v, want one warning", evs)
		}
	})
	t.Run("deadlock", func(t *testing.T) {
		reg := newRegistry(t)
		c := proxied(t, cfg, reg)
		c.handshake()
		c.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"deadlock","arguments":{}}}`)
		w, _ := c.until(actWithin(cfg)+10*time.Second, "a log warning", func(m received) bool { return m.Method == "notifications/message" })
		if !strings.Contains(string(w.Params), "looks stuck") || !strings.Contains(string(w.Params), `"level":"warning"`) {
			t.Fatalf("the warning %s", w.raw)
		}
		// Told once: more checks pass, and only the next call's answer comes.
		time.Sleep(3 * cfg.Interval())
		c.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"quick","arguments":{"text":"next"}}}`)
		m, before := c.response("4", 10*time.Second)
		if text(m) != "quick: next" {
			t.Errorf("the next call got %s", m.raw)
		}
		for _, b := range before {
			t.Errorf("after the warning the client got %s; a call is warned of once", b.raw)
		}
		if evs := warnings(t, reg); len(evs) != 1 {
			t.Errorf("events: %+v, want one warning", evs)
		}
	})
}

// A call whose server works (a CPU-bound tool that sends nothing for
// longer than the checks take to act) is never touched.
func TestWorkingServerIsNotTouched(t *testing.T) {
	reg := newRegistry(t)
	cfg := fastChecks(watchdogconf.OtherToolsAbort)
	c := proxied(t, cfg, reg)
	c.handshake()
	secs := int((actWithin(cfg) + 2*cfg.Interval()).Seconds())
	c.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"busy","arguments":{"seconds":%d}}}`, secs)
	m, before := c.response("3", time.Duration(secs)*time.Second+30*time.Second)
	if m.Result == nil || m.Result.IsError || !strings.HasPrefix(text(m), "busy: done") {
		t.Errorf("the working call's answer %s, want the server's own", m.raw)
	}
	for _, b := range before {
		t.Errorf("while the server worked the client got %s", b.raw)
	}
	if evs := warnings(t, reg); len(evs) != 0 {
		t.Errorf("events for a working call: %+v", evs)
	}
}

// Under off, nothing is sampled and a deadlocked call is left to the client.
func TestOffRelaysUntouched(t *testing.T) {
	reg := newRegistry(t)
	cfg := fastChecks(watchdogconf.OtherToolsOff)
	c := proxied(t, cfg, reg)
	c.handshake()
	c.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"deadlock","arguments":{}}}`)
	time.Sleep(actWithin(cfg))
	c.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"quick","arguments":{}}}`)
	_, before := c.response("4", 10*time.Second)
	for _, b := range before {
		t.Errorf("under off the client got %s", b.raw)
	}
	if evs := warnings(t, reg); len(evs) != 0 {
		t.Errorf("events under off: %+v", evs)
	}
}

func newRegistry(t *testing.T) *bgtasks.Registry {
	t.Helper()
	reg, err := bgtasks.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// runningTask is the proxied server's task record, which must be listed as
// running while the proxy runs.
func runningTask(t *testing.T, reg *bgtasks.Registry) *bgtasks.Task {
	t.Helper()
	ts, err := reg.List()
	if err != nil || len(ts) != 1 {
		t.Fatalf("tasks: %v (%v), want the server's", ts, err)
	}
	if ts[0].State() != bgtasks.Running || ts[0].Mode != bgtasks.Background || !strings.HasPrefix(ts[0].Command, "mcp-proxy stub: ") {
		t.Errorf("the server's task: %+v, want a running background task", ts[0].Meta)
	}
	return ts[0]
}

func warnings(t *testing.T, reg *bgtasks.Registry) []bgtasks.Event {
	t.Helper()
	evs, err := reg.Events(0)
	if err != nil {
		t.Fatal(err)
	}
	var out []bgtasks.Event
	for _, e := range evs {
		if e.Kind == bgtasks.EventWarning {
			out = append(out, e)
		}
	}
	return out
}

// The server is a task like any: its status and `hangdog bg kill` reach it
// through its control socket, the kill ends it and its result says so, and
// the proxy ends with it.
func TestServerTaskAnswersStatusAndKill(t *testing.T) {
	reg := newRegistry(t)
	c := proxied(t, fastChecks(watchdogconf.OtherToolsWarn), reg)
	c.handshake()
	task := runningTask(t, reg)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	st, err := taskctl.TaskStatus(ctx, task)
	if err != nil || st.PID != task.PID || st.Mode != bgtasks.Background {
		t.Fatalf("status of the server's task: %+v, %v; want its PID %d, in the background", st, err, task.PID)
	}
	res, err := taskctl.KillTask(ctx, task, syscall.SIGTERM, 2*time.Second, "killed by the test")
	if err != nil || res.State != bgtasks.Killed || res.Reason != "killed by the test" {
		t.Fatalf("kill: %+v, %v; want the task killed with the test's reason", res, err)
	}
	select {
	case err := <-c.done:
		if !errors.Is(err, ErrServerExited) {
			t.Errorf("the proxy ended with %v, want ErrServerExited", err)
		}
		c.done <- nil // ended as it should: the cleanup finds it so
	case <-time.After(10 * time.Second):
		t.Fatal("the proxy did not end with its server")
	}
	got, err := reg.Get(task.ID)
	if err != nil || got.State() != bgtasks.Killed {
		t.Errorf("the task after the kill: %+v, %v", got, err)
	}
}
