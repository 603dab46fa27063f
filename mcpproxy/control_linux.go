//go:build linux

package mcpproxy

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/internal/unixsock"
	"github.com/hangdog/hangdog/supervisor/proto"
)

// control is the task's control socket, served as a supervisor serves its
// task's (supervisor/proto), so that `hangdog bg kill` and the listings'
// status reach the proxied server like any task.
type control struct {
	p        *proxy
	ln       net.Listener
	path     string
	inflight sync.WaitGroup
}

// listenControl opens the task's control socket, private to the user; a
// failure is reported and the proxy goes on without it.
func (p *proxy) listenControl() *control {
	if p.task == nil {
		return nil
	}
	path := p.task.reg.SocketPath(p.task.meta.ID)
	os.Remove(path)
	// The task dir is 0700; the umask makes the socket 0600 from the start.
	old := unix.Umask(0o177)
	ln, err := unixsock.Listen(path)
	unix.Umask(old)
	if err != nil {
		p.diag("no control socket, so `hangdog bg kill %s` cannot reach the server: %v", p.task.meta.ID, err)
		return nil
	}
	c := &control{p: p, ln: ln, path: path}
	c.inflight.Go(c.accept)
	return c
}

func (c *control) accept() {
	for {
		conn, err := c.ln.Accept()
		if err != nil {
			return
		}
		c.inflight.Go(func() { c.serve(conn) })
	}
}

func (c *control) serve(conn net.Conn) {
	defer conn.Close()
	if !unixsock.SameUser(conn) {
		return
	}
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	line, err := bufio.NewReaderSize(conn, 64<<10).ReadBytes('\n')
	if err != nil {
		return
	}
	conn.SetReadDeadline(time.Time{})
	conn.Write(proto.Serve(controlServer{c.p}, line))
}

// close stops serving once the task has ended, and waits for the requests
// being answered (a kill waits for the end, which has come).
func (c *control) close() {
	if c == nil {
		return
	}
	c.ln.Close()
	os.Remove(c.path)
	c.inflight.Wait()
}

// controlServer answers the control socket's operations (proto.Server).
type controlServer struct{ p *proxy }

func (s controlServer) Status(proto.StatusRequest) (proto.Status, error) {
	return proto.Status{Mode: bgtasks.Background, PID: s.p.pid, OutputBytes: s.p.task.outputBytes()}, nil
}

func (s controlServer) Detach(proto.DetachRequest) (proto.Detach, error) {
	return proto.Detach{}, &proto.Refusal{Kind: proto.ErrBackground,
		Msg: fmt.Sprintf("task %s (the MCP server %s behind hangdog mcp-proxy) runs in the background already", s.p.task.meta.ID, s.p.name)}
}

// Kill ends the server's process group: the signal, then SIGKILL after the
// grace. It answers once the task's result is written; the proxy then ends
// too (its client sees the server gone).
func (s controlServer) Kill(req proto.KillRequest) (proto.Result, error) {
	p := s.p
	sig, grace, reason := req.Resolved(stopGrace)
	select {
	case <-p.ended:
		return proto.Result{}, &proto.Refusal{Kind: proto.ErrEnded, Msg: fmt.Sprintf("task %s has ended", p.task.meta.ID)}
	default:
	}
	p.mu.Lock()
	if p.killReason == "" {
		p.killReason = reason
	}
	p.mu.Unlock()
	_ = syscall.Kill(-p.pid, sig)
	select {
	case <-p.ended:
	case <-time.After(grace):
		_ = syscall.Kill(-p.pid, syscall.SIGKILL)
		<-p.ended
	}
	r := p.task.result
	return proto.Result{State: r.State, ExitCode: r.ExitCode, Signal: r.Signal, Ended: r.Ended, Reason: r.Reason, OutputBytes: r.OutputBytes}, nil
}

func (s controlServer) Send(proto.SendRequest) (proto.Ack, error) {
	return proto.Ack{}, fmt.Errorf("task %s is the MCP server %s behind hangdog mcp-proxy: its stdin belongs to its MCP client, nothing can be typed to it", s.p.task.meta.ID, s.p.name)
}

func (s controlServer) Resize(proto.ResizeRequest) (proto.Ack, error) {
	return proto.Ack{}, fmt.Errorf("task %s is the MCP server %s behind hangdog mcp-proxy: it has no terminal to resize", s.p.task.meta.ID, s.p.name)
}
