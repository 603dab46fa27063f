package mcpproxy

import (
	"context"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
)

// task is the proxied server's record in the registry: a background task
// whose supervisor is the proxy, so listings show it running while the
// proxy runs and lost if the proxy dies without ending it.
type task struct {
	reg    *bgtasks.Registry
	meta   bgtasks.Meta
	output *countingFile  // the server's stderr, as the task's output
	result bgtasks.Result // once ended
}

// register records the server as a task. A registry that cannot take it
// is reported and the proxy goes on: watching the calls does not need it.
func (p *proxy) register(pid int) *task {
	reg := p.cfg.Registry
	if reg == nil {
		return nil
	}
	self := os.Getpid()
	selfTicks, _ := bgtasks.ProcStartTicks(self)
	ticks, _ := bgtasks.ProcStartTicks(pid)
	cwd := p.cfg.Dir
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	t, err := reg.Create(bgtasks.Meta{
		Command: "mcp-proxy " + p.name + ": " + strings.Join(p.cfg.Argv, " "),
		Argv:    p.cfg.Argv, Cwd: cwd, Mode: bgtasks.Background, State: bgtasks.Running,
		SupervisorPID: self, SupervisorTicks: selfTicks, PID: pid, PGID: pid, StartTicks: ticks,
		Caller: "agent", Owner: p.cfg.Owner, Project: p.cfg.Project,
		// It ends with the client's session: no news.
		QuietEnd:  true,
		MCPServer: p.name,
	})
	if err != nil {
		p.diag("the server is not listed as a task: %v", err)
		return nil
	}
	tk := &task{reg: reg, meta: t.Meta}
	f, err := os.OpenFile(t.OutputPath(), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		p.diag("the server's stderr is not kept as the task's output: %v", err)
	} else {
		tk.output = &countingFile{f: f}
	}
	return tk
}

func (p *proxy) taskID() string {
	if p.task == nil {
		return p.name
	}
	return p.task.meta.ID
}

// event writes a stuck call's warning to the event log, once per call (the
// caller's acted flag keeps it once).
func (p *proxy) event(elapsed time.Duration, reason string) {
	if p.task == nil {
		return
	}
	ev := p.task.meta.Event(bgtasks.EventWarning)
	ev.DurationMS, ev.Reason = elapsed.Milliseconds(), reason
	if _, err := p.task.reg.AppendEvent(ev); err != nil {
		p.diag("%v", err)
	}
}

// outputBytes is how much of the server's stderr the task's output holds.
func (t *task) outputBytes() int64 {
	if t.output == nil {
		return 0
	}
	t.output.mu.Lock()
	defer t.output.mu.Unlock()
	return t.output.n
}

// end writes the task's result once the server has exited; killed is the
// reason of a kill through the control socket, or "".
func (t *task) end(st *os.ProcessState, killed string) {
	if t == nil {
		return
	}
	res := bgtasks.Result{State: bgtasks.Exited, Ended: time.Now()}
	if killed != "" {
		res.State, res.Reason = bgtasks.Killed, killed
	}
	if t.output != nil {
		res.OutputBytes = t.output.close()
	}
	if st != nil {
		res.ExitCode = st.ExitCode()
		if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			res.State, res.Signal, res.ExitCode = bgtasks.Killed, ws.Signal().String(), 128+int(ws.Signal())
		}
	}
	t.result = res
	if err := t.reg.WriteResult(t.meta.ID, res); err != nil {
		os.Stderr.WriteString("hangdog mcp-proxy: " + err.Error() + "\n")
	}
}

// countingFile is the task's output log, counting what it holds.
type countingFile struct {
	mu sync.Mutex
	f  *os.File
	n  int64
}

func (c *countingFile) Write(b []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f == nil {
		return len(b), nil
	}
	n, err := c.f.Write(b)
	c.n += int64(n)
	return n, err
}

func (c *countingFile) close() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f != nil {
		c.f.Close()
		c.f = nil
	}
	return c.n
}

// callsChanged wakes recordCalls if a call started or ended, or its verdict
// changed.
func (p *proxy) callsChanged() {
	p.mu.Lock()
	dirty := p.calls.takeDirty()
	p.mu.Unlock()
	if dirty {
		p.wakeRecorder()
	}
}

// wakeRecorder never blocks the relay: a wake already pending covers this
// change too, as recordCalls reads the table when it wakes.
func (p *proxy) wakeRecorder() {
	select {
	case p.callsDirty <- struct{}{}:
	default:
	}
}

// recordGather is how long recordCalls waits after a change before it
// writes, gathering the changes that follow into one write: the record is
// read by listings polled every second or two, and a client calling a quick
// tool in a loop must not cost a write per call.
const recordGather = 100 * time.Millisecond

// recordCalls writes the calls in flight to the task's record (bgtasks)
// when they change, until ctx ends. It runs beside the relay, so a call
// never waits for the disk; it writes at most once per recordGather, and
// not at all when the calls are back as last written: a call that starts
// and ends within it costs no write, a longer one two (its start, its end).
func (p *proxy) recordCalls(ctx context.Context) {
	gather := time.NewTimer(recordGather)
	gather.Stop()
	var written []bgtasks.Call // none: what no record says too
	failed := false
	for {
		select {
		case <-ctx.Done():
			gather.Stop()
			return
		case <-p.callsDirty:
		}
		gather.Reset(recordGather)
		ending := false
		select {
		case <-ctx.Done():
			// The proxy is ending: the change pending is written now, so
			// the record left behind is the last one, not one before it.
			gather.Stop()
			ending = true
		case <-gather.C:
		}
		p.mu.Lock()
		calls := p.calls.record()
		p.mu.Unlock()
		if slices.EqualFunc(calls, written, sameCall) {
			if ending {
				return
			}
			continue
		}
		err := p.task.reg.WriteCalls(p.task.meta.ID, calls)
		if err == nil {
			written = calls
		}
		// Said once: a registry that cannot take it will not take it the
		// next time either, and the relay goes on regardless.
		if err != nil && !failed {
			p.diag("the calls in flight are not listed: %v", err)
		}
		failed = err != nil
		if ending {
			return
		}
	}
}

func sameCall(a, b bgtasks.Call) bool {
	return a.Tool == b.Tool && a.RequestID == b.RequestID && a.Started.Equal(b.Started) &&
		a.LastProgress.Equal(b.LastProgress) && a.Verdict == b.Verdict && a.Stuck == b.Stuck
}
