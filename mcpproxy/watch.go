package mcpproxy

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/hangdog/hangdog/internal/termtext"
	"github.com/hangdog/hangdog/jev"
	"github.com/hangdog/hangdog/settings/watchdogconf"
	"github.com/hangdog/hangdog/supervisor/sampler"
	"github.com/hangdog/hangdog/supervisor/watchdog"
)

// checkTick is how often the watch loop looks for a due check. Only a due
// check samples /proc and asks the judge; a tick with none costs a lock.
const checkTick = time.Second

// debugEnv, set to 1, writes every check's line to stderr, as it writes
// the bash watchdog's to its log (watchdog.debug does the same).
const debugEnv = "HANGDOG_DEBUG_WATCHDOG"

// watch judges the calls in flight until ctx ends. Every due check samples
// the server's process tree once (the proxy is its parent, so the tree the
// sampler walks from the proxy is the server's) and takes one snapshot of its
// stderr, and passes both through every call's Watch: a due call's is asked
// of the judge, the others' only count the window.
func (p *proxy) watch(ctx context.Context) {
	cfg := p.cfg.Watchdog
	// The action is the proxy's own (otherTools); warn keeps the Watch from
	// proposing what only a terminal command can get (detaching a service).
	cfg.Action = watchdog.ActionWarn
	debug := cfg.Debug || os.Getenv(debugEnv) == "1"
	smp := sampler.New(os.Getpid(), nil)
	if _, err := smp.Sample(); err != nil {
		p.diag("cannot watch tool calls: %v; relaying without watching", err)
		return
	}
	judge := jev.NewJudge(jev.NewLocal(), p.cfg.Remote)
	tick := time.NewTicker(checkTick)
	defer tick.Stop()
	for {
		var now time.Time
		select {
		case <-ctx.Done():
			return
		case now = <-tick.C:
		}
		p.mu.Lock()
		calls := p.calls.watched(now)
		since := make([]time.Time, len(calls))
		for i, c := range calls {
			since[i] = c.since
		}
		p.mu.Unlock()
		anyDue := false
		for i, c := range calls {
			// A sign of life starts the call's watch again from it: what is
			// judged is the silence since.
			if c.watch == nil || !c.watchSince.Equal(since[i]) {
				c.watch = watchdog.New(cfg, callCommand(p.name, c.tool), since[i])
				c.watchSince = since[i]
			}
			anyDue = anyDue || !now.Before(c.watch.NextDue())
		}
		if !anyDue {
			continue
		}
		tree, err := smp.Sample()
		out := p.tracker.Snapshot(now)
		for _, c := range calls {
			obs := watchdog.Observation{Now: now, Started: c.watchSince, Command: callCommand(p.name, c.tool),
				Tree: tree, TreeOK: err == nil && tree.Complete, Output: out}
			if now.Before(c.watch.NextDue()) {
				c.watch.Fast(obs)
				continue
			}
			v, jerr := judge.Ask(ctx, c.watch.StateFor(obs))
			if jerr != nil && ctx.Err() != nil {
				return
			}
			obs.Verdict = &v
			d := c.watch.Due(obs)
			p.mu.Lock()
			p.calls.judged(c, d.Status)
			p.mu.Unlock()
			p.callsChanged()
			if debug {
				p.diag("%s", d.LogLine(p.taskID()+" "+c.tool))
			}
			if d.Act {
				p.act(c, d, now)
			}
		}
	}
}

// callCommand is what the judge is told the watched "command" is: the
// call, not the server's command line, whose words (a `timeout`, a known
// program) say nothing about how long one call may take.
func callCommand(server, tool string) string {
	return "mcp tools/call " + server + "/" + tool
}

// act applies otherTools to a call judged stuck, once.
func (p *proxy) act(c *call, d watchdog.Decision, now time.Time) {
	p.mu.Lock()
	if c.acted || p.calls.live[c.key] != c {
		p.mu.Unlock()
		return // answered meanwhile
	}
	c.acted = true
	p.calls.dirty = true
	// Whole seconds, so the event and the words say the same.
	elapsed := now.Sub(c.started).Round(time.Second)
	what := seen(c, d, now)
	var msg string
	switch p.mode {
	case watchdogconf.OtherToolsAbort:
		p.calls.abort(c)
		p.mu.Unlock()
		p.callsChanged()
		msg = fmt.Sprintf("hangdog aborted this call of %s on the MCP server %s after %s: %s. The server was told to cancel it; its other tools and later calls work as before.",
			c.tool, p.name, dur(elapsed), what)
		if b, err := cancelledLine(c.id, "hangdog: "+what); err == nil {
			if err := p.toServer(b); err != nil {
				p.diag("tell the server to cancel %s: %v", c.tool, err)
			}
		}
		if b, err := errorResultLine(c.id, msg); err == nil {
			if err := p.toClient(b); err != nil {
				p.diag("answer the aborted call %s: %v", c.tool, err)
			}
		}
	default: // warn
		msg = fmt.Sprintf("hangdog warning: this call of %s on the MCP server %s has run %s and looks stuck: %s.",
			c.tool, p.name, dur(elapsed), what)
		c.warned = msg
		token, progress := c.token, c.progress
		p.mu.Unlock()
		p.callsChanged()
		var b []byte
		var err error
		if token != nil {
			b, err = progressLine(token, progress, msg)
		} else {
			b, err = logLine(msg)
		}
		if err == nil {
			if err := p.toClient(b); err != nil {
				p.diag("warn of %s: %v", c.tool, err)
			}
		}
	}
	p.diag("%s", msg)
	p.event(elapsed, msg)
}

// seen says what the watchdog saw, in words a model can act on: its reason,
// and the evidence behind it, for how long.
func seen(c *call, d watchdog.Decision, now time.Time) string {
	var b strings.Builder
	b.WriteString(d.Reason)
	if c.progressSeen {
		fmt.Fprintf(&b, " (no progress for %s, after progress %g)", dur(now.Sub(c.since)), c.progress)
	} else {
		fmt.Fprintf(&b, " (no progress notification in %s)", dur(now.Sub(c.since)))
	}
	var ev []string
	for _, e := range d.Evidence {
		if len(ev) == 4 {
			break
		}
		ev = append(ev, termtext.OneLine(e))
	}
	if len(ev) > 0 {
		b.WriteString("; seen: " + strings.Join(ev, "; "))
	}
	return termtext.Clip(b.String(), 1000)
}

func dur(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.0f s", d.Seconds())
	}
	return d.Round(time.Second).String()
}
