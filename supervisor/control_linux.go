//go:build linux

package supervisor

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/internal/unixsock"
	"github.com/hangdog/hangdog/supervisor/proto"
)

func (s *supervisor) socketPath() string { return s.reg.SocketPath(s.meta.ID) }

func (s *supervisor) listen() (net.Listener, error) {
	path := s.socketPath()
	os.Remove(path)
	// The task dir is 0700 already; the umask makes the socket itself 0600 from
	// the moment it exists, with no window before a chmod.
	old := unix.Umask(0o177)
	ln, err := unixsock.Listen(path) // a path of any length
	unix.Umask(old)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	return ln, nil
}

func (s *supervisor) serveControl(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		s.inflight.Add(1)
		go func() {
			defer s.inflight.Done()
			s.serveConn(c)
		}()
	}
}

func (s *supervisor) serveConn(c net.Conn) {
	defer c.Close()
	if !unixsock.SameUser(c) {
		return
	}
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	line, err := bufio.NewReaderSize(c, 64<<10).ReadBytes('\n')
	if err != nil {
		return
	}
	c.SetReadDeadline(time.Time{})
	c.Write(proto.Serve(controlServer{s}, line))
}

// controlServer serves the control socket's operations (proto.Server).
type controlServer struct{ s *supervisor }

func (c controlServer) Status(proto.StatusRequest) (proto.Status, error) {
	s := c.s
	s.mu.Lock()
	st := proto.Status{Mode: s.meta.Mode, PID: s.pid, OutputBytes: s.written.Load()}
	s.mu.Unlock()
	st.EchoOff = s.echoOff()
	return st, nil
}

func (c controlServer) Detach(req proto.DetachRequest) (proto.Detach, error) {
	d, err := c.s.detach(req.Reason, "")
	if errors.Is(err, errAlreadyBackground) {
		return d, &proto.Refusal{Kind: proto.ErrBackground, Msg: err.Error()}
	}
	return d, err
}

func (c controlServer) Kill(req proto.KillRequest) (proto.Result, error) {
	s := c.s
	// The words are the caller's (which front end, which command);
	// Resolved's are only for a caller that gave none.
	sig, grace, reason := req.Resolved(defaultGrace)
	if s.isEnded() {
		return proto.Result{}, s.endedRefusal()
	}
	s.kill(sig, grace, reason)
	<-s.ended
	s.mu.Lock()
	res := s.result
	s.mu.Unlock()
	return wireResult(res), nil
}

func (c controlServer) Send(req proto.SendRequest) (proto.Ack, error) {
	s := c.s
	if s.isEnded() {
		return proto.Ack{}, s.endedRefusal()
	}
	if err := s.checkSendable(req.Data); err != nil { // sendcheck_linux.go
		return proto.Ack{}, err
	}
	if _, err := s.master.Write(req.Data); err != nil {
		return proto.Ack{}, fmt.Errorf("write to task %s's terminal: %v", s.meta.ID, err)
	}
	return proto.Ack{}, nil
}

func (c controlServer) Resize(req proto.ResizeRequest) (proto.Ack, error) {
	return proto.Ack{}, setWinsize(c.s.master, req.Rows, req.Cols)
}

func (s *supervisor) isEnded() bool {
	select {
	case <-s.ended:
		return true
	default:
		return false
	}
}

// endedRefusal refuses a request for a task that has ended. What to do
// instead (read its log) is for the caller to say in its own words.
func (s *supervisor) endedRefusal() error {
	return &proto.Refusal{Kind: proto.ErrEnded, Msg: fmt.Sprintf("task %s has already ended", s.meta.ID)}
}

var errAlreadyBackground = errors.New("already in the background")

// detach moves a foreground run to the background: the record first, then
// the event, then the caller is told and let go. The command is untouched.
// wait is what the watchdog saw it waiting for ("" when a caller asked).
func (s *supervisor) detach(reason, wait string) (proto.Detach, error) {
	if reason == "" {
		reason = "detached on request"
	}
	return s.toBackground(proto.Detach{Reason: reason, Wait: wait})
}

// toBackground is detach with what the caller is told filled in by the
// reason for it (d's Reason, Wait, ExitCode, LeftRunning).
func (s *supervisor) toBackground(d proto.Detach) (proto.Detach, error) {
	reason := d.Reason
	s.mu.Lock()
	if s.isEnded() || s.killDone != nil {
		s.mu.Unlock()
		return proto.Detach{}, fmt.Errorf("task %s is ending; nothing to detach", s.meta.ID)
	}
	if s.meta.Mode == bgtasks.Background {
		s.mu.Unlock()
		return proto.Detach{}, fmt.Errorf("task %s is %w", s.meta.ID, errAlreadyBackground)
	}
	now := time.Now()
	s.meta.Mode = bgtasks.Background
	s.noTerminal.Store(true) // the person's terminal no longer shows it
	s.meta.DetachedAt = &now
	s.meta.DetachReason = reason
	meta := s.meta
	s.mu.Unlock()

	if err := s.reg.WriteMeta(meta); err != nil {
		fmt.Fprintln(os.Stderr, "hangdog supervisor:", err)
	}
	d.TaskID, d.ElapsedMS = meta.ID, now.Sub(meta.Started).Milliseconds()
	d.Tail, d.OutputBytes = s.lastLines(), s.written.Load()
	ev := meta.Event(bgtasks.EventDetached)
	ev.DurationMS, ev.Reason, ev.Tail = d.ElapsedMS, reason, d.Tail
	if _, err := s.reg.AppendEvent(ev); err != nil {
		fmt.Fprintln(os.Stderr, "hangdog supervisor:", err)
	}
	b, _ := json.Marshal(d)
	s.linkMu.Lock()
	if s.link != nil {
		proto.WriteFrame(s.link, proto.FrameDetached, b)
		s.link.Close()
		s.link = nil
	}
	s.linkMu.Unlock()
	return d, nil
}

// echoOff reads the terminal mode the program set: on Linux the master's
// TCGETS reports the slave's settings, which is what the program changes.
func (s *supervisor) echoOff() bool {
	if s.master == nil {
		return false
	}
	off := false
	withFd(s.master, func(fd int) {
		if t, err := unix.IoctlGetTermios(fd, unix.TCGETS); err == nil {
			off = t.Lflag&unix.ECHO == 0 && t.Lflag&unix.ICANON != 0
		}
	})
	return off
}
