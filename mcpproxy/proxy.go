package mcpproxy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/jev"
	"github.com/hangdog/hangdog/settings/watchdogconf"
	"github.com/hangdog/hangdog/supervisor/activity"
)

// Defaults is the watchdog cadence of a watched tool call, for each key
// the user has not set (settings.Options.Defaults: every file, the
// environment and the flags win over it). The command defaults (a first
// check at 2 minutes, then every 3) would act at about 5 minutes, after
// the clients have given up on the call (60 s in the TypeScript SDK and
// Codex; Claude Code backgrounds it at 2 minutes); checks at 15 s, then
// every 15 s, with two to agree, act 30–45 s after the call's last sign
// of life.
var Defaults = map[string]string{"watchdog.firstCheckMin": "0.25", "watchdog.intervalMin": "0.25"}

// Config is one proxy: the server it runs and what it does with a stuck
// call.
type Config struct {
	// Name names the server in messages, events and the task list
	// (default: the program's base name).
	Name string
	Argv []string // the real server: program and arguments
	Dir  string   // its working directory; "" for the proxy's
	Env  []string // its environment; nil for the proxy's

	// Watchdog is the effective configuration: OtherTools says what a stuck
	// call gets, the check schedule and the judge's confidence are the bash
	// watchdog's. Enabled false relays untouched, as OtherTools off does.
	Watchdog watchdogconf.Watchdog
	// Remote is the decision model asked when the local judge is unsure;
	// nil judges locally.
	Remote jev.Backend

	// Registry holds the server's task record and gets the stuck calls'
	// events; nil registers nothing (the relay and its watch still run).
	Registry       *bgtasks.Registry
	Owner, Project string

	In     io.Reader // from the client
	Out    io.Writer // to the client
	Stderr io.Writer // the server's stderr is copied here, and the proxy's own diagnostics
}

// stopGrace is how long a server whose stdin was closed has to exit before
// its process group is sent SIGTERM, and then again before SIGKILL.
const stopGrace = 3 * time.Second

// ErrServerExited is returned by Run when the server ended before the
// client closed its side.
var ErrServerExited = errors.New("the MCP server exited")

type proxy struct {
	cfg  Config
	mode string
	name string

	outMu sync.Mutex // one message at a time to the client
	out   io.Writer
	srvMu sync.Mutex // one message at a time to the server
	srvIn io.WriteCloser

	tracker *activity.Tracker
	task    *task

	pid   int           // the server's, leader of its process group
	ended chan struct{} // closed once the task's result is written

	// callsDirty wakes recordCalls: the calls in flight changed.
	callsDirty chan struct{}

	mu         sync.Mutex
	calls      callTable
	killReason string // set by a kill through the control socket
}

// Run starts the server and relays until the client closes its input (the
// server's stdin is then closed, and the server given stopGrace to exit),
// ctx ends, or the server exits (ErrServerExited, wrapped with how).
//
// The reader of cfg.In is owned by Run until the client closes it; when the
// server exits first, Run returns without waiting for that reader, whose
// next line finds the server gone and ends it (a blocked read of a pipe
// cannot be interrupted).
func Run(ctx context.Context, cfg Config) error {
	if len(cfg.Argv) == 0 {
		return errors.New("mcp-proxy needs the server's command after --, e.g. `hangdog mcp-proxy -- npx -y @modelcontextprotocol/server-fetch`")
	}
	if cfg.Stderr == nil {
		cfg.Stderr = io.Discard
	}
	p := &proxy{cfg: cfg, out: cfg.Out, tracker: activity.NewTracker(), calls: newCallTable(), ended: make(chan struct{}),
		callsDirty: make(chan struct{}, 1)}
	p.name = cfg.Name
	if p.name == "" {
		p.name = baseName(cfg.Argv[0])
	}
	p.mode = cfg.Watchdog.OtherTools
	if !cfg.Watchdog.Enabled {
		p.mode = watchdogconf.OtherToolsOff
	}

	cmd := exec.Command(cfg.Argv[0], cfg.Argv[1:]...)
	cmd.Dir, cmd.Env = cfg.Dir, cfg.Env
	// Its own process group, so that a server that ignores its closed stdin
	// is ended with everything it started.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// A process that left the group and still holds the server's stderr
	// must not keep Wait from returning.
	cmd.WaitDelay = stopGrace
	srvIn, err := cmd.StdinPipe()
	if err != nil {
		return fmt.Errorf("mcp-proxy: %w", err)
	}
	srvOut, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("mcp-proxy: %w", err)
	}
	p.srvIn = srvIn
	stderr := &tee{w: []io.Writer{cfg.Stderr, p.tracker}}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("mcp-proxy: start the MCP server %s: %w; check the command after --", strings.Join(cfg.Argv, " "), err)
	}
	p.pid = cmd.Process.Pid
	p.task = p.register(p.pid)
	if p.task != nil && p.task.output != nil {
		stderr.add(p.task.output)
	}
	ctl := p.listenControl()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	if p.mode != watchdogconf.OtherToolsOff {
		wg.Go(func() { p.watch(ctx) })
		if p.task != nil {
			wg.Go(func() { p.recordCalls(ctx) })
		}
	}
	clientDone := make(chan struct{})
	go func() {
		p.relay(cfg.In, p.fromClient)
		// Marked before the server can see its stdin end, so that a server
		// exiting at once is known to have been asked to.
		close(clientDone)
		srvIn.Close()
	}()
	serverDone := make(chan struct{})
	go func() {
		defer close(serverDone)
		p.relay(srvOut, p.fromServer)
	}()

	clientFirst := false
	select {
	case <-clientDone:
		clientFirst = true
	case <-serverDone:
		select {
		case <-clientDone:
			clientFirst = true // it exited because the client closed its side
		default:
		}
	case <-ctx.Done():
		srvIn.Close()
		clientFirst = true
	}
	waitErr := stopServer(cmd, srvOut, serverDone)
	cancel()
	wg.Wait()
	p.mu.Lock()
	killed := p.killReason
	p.mu.Unlock()
	p.task.end(cmd.ProcessState, killed)
	close(p.ended)
	ctl.close()
	if killed != "" {
		return fmt.Errorf("%w: %s: %s", ErrServerExited, p.name, killed)
	}
	if clientFirst {
		return nil
	}
	if waitErr != nil {
		return fmt.Errorf("%w: %s: %v", ErrServerExited, p.name, waitErr)
	}
	return fmt.Errorf("%w: %s closed its output", ErrServerExited, p.name)
}

// stopServer waits for the server, whose stdin is closed or who closed its
// stdout, to exit: stopGrace, then SIGTERM to its group, then SIGKILL.
func stopServer(cmd *exec.Cmd, srvOut io.Closer, serverDone <-chan struct{}) error {
	exited := make(chan error, 1)
	go func() {
		// Wait closes the stdout pipe: read it to the end first.
		<-serverDone
		exited <- cmd.Wait()
	}()
	pgid := cmd.Process.Pid
	for _, sig := range []syscall.Signal{0, syscall.SIGTERM, syscall.SIGKILL} {
		if sig != 0 {
			_ = syscall.Kill(-pgid, sig)
		}
		select {
		case err := <-exited:
			return err
		case <-time.After(stopGrace):
		}
	}
	// Killed, and still its stdout is open: a process that left its group
	// holds it. Stop reading it; Wait (with WaitDelay) ends the stderr copy.
	srvOut.Close()
	return <-exited
}

// relay hands every line of r to handle, until r ends.
func (p *proxy) relay(r io.Reader, handle func([]byte) error) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		b, err := br.ReadBytes('\n')
		if len(b) > 0 {
			if herr := handle(b); herr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// toClient writes one whole message to the client.
func (p *proxy) toClient(b []byte) error {
	p.outMu.Lock()
	defer p.outMu.Unlock()
	_, err := p.out.Write(b)
	return err
}

// toServer writes one whole message to the server.
func (p *proxy) toServer(b []byte) error {
	p.srvMu.Lock()
	defer p.srvMu.Unlock()
	_, err := p.srvIn.Write(b)
	return err
}

// fromClient relays a client's line to the server, noting a tools/call
// before it goes, so that its answer cannot come back unnoticed.
func (p *proxy) fromClient(b []byte) error {
	if p.mode != watchdogconf.OtherToolsOff {
		if m, ok := peek(b); ok {
			now := time.Now()
			p.mu.Lock()
			switch {
			case m.Method == methodCallTool && m.isRequest():
				p.calls.start(m, now)
			case m.Method == methodCancelled:
				// The client gave up on it: nothing to watch for it any more.
				p.calls.forget(idKey(m.Params.RequestID))
			case m.isResponse():
				p.calls.answered(idKey(m.ID), now)
			}
			dirty := p.calls.takeDirty()
			p.mu.Unlock()
			if dirty {
				p.wakeRecorder()
			}
		}
	}
	return p.toServer(b)
}

// fromServer relays a server's line to the client, unless it answers a
// call the proxy already answered (aborted), and with the warning added
// when it answers one the proxy warned about.
func (p *proxy) fromServer(b []byte) error {
	if p.mode != watchdogconf.OtherToolsOff {
		if m, ok := peek(b); ok {
			now := time.Now()
			p.mu.Lock()
			var drop bool
			var warning string
			switch {
			case m.isResponse():
				drop, warning = p.calls.finish(idKey(m.ID))
			case m.Method == methodProgress:
				p.calls.progress(idKey(m.Params.ProgressToken), m.Params.Progress, now)
			case m.isRequest():
				p.calls.asked(idKey(m.ID), now)
			}
			dirty := p.calls.takeDirty()
			p.mu.Unlock()
			if dirty {
				p.wakeRecorder()
			}
			if drop {
				return nil
			}
			if warning != "" {
				b = withWarning(b, warning)
			}
		}
	}
	// A client that went away is noticed on its input side; the server's
	// output is still read to the end, so it never blocks writing.
	_ = p.toClient(b)
	return nil
}

// diag writes one of the proxy's own diagnostics to stderr, which MCP
// clients keep as the server's log.
func (p *proxy) diag(format string, args ...any) {
	fmt.Fprintf(p.cfg.Stderr, "hangdog mcp-proxy (%s): %s\n", p.name, fmt.Sprintf(format, args...))
}

// tee writes to every writer and never fails: the client's stderr going
// away must not stop the server's stderr from being read.
type tee struct {
	mu sync.Mutex
	w  []io.Writer
}

func (t *tee) add(w io.Writer) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.w = append(t.w, w)
}

func (t *tee) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, w := range t.w {
		if w != nil {
			_, _ = w.Write(b)
		}
	}
	return len(b), nil
}

func baseName(prog string) string {
	if i := strings.LastIndexByte(prog, '/'); i >= 0 {
		return prog[i+1:]
	}
	return prog
}
