//go:build linux

package supervisor

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hangdog/hangdog/bgtasks"
)

// request is one line of JSON on a task's control socket; the reply is one
// line too. The socket is for the user's own hangdog processes, not an API.
type request struct {
	Op      string `json:"op"` // status | detach | kill | send | resize
	Reason  string `json:"reason,omitempty"`
	Signal  int    `json:"signal,omitempty"`
	GraceMS int64  `json:"grace_ms,omitempty"`
	Data    []byte `json:"data,omitempty"`
	Rows    uint16 `json:"rows,omitempty"`
	Cols    uint16 `json:"cols,omitempty"`
}

type reply struct {
	OK     bool            `json:"ok"`
	Error  string          `json:"error,omitempty"`
	Result *bgtasks.Result `json:"result,omitempty"`
	Detach *Detach         `json:"detach,omitempty"`
	Status *Status         `json:"status,omitempty"`
}

// Detach is what a caller is told when its run moves to the background.
type Detach struct {
	TaskID    string `json:"task_id"`
	Reason    string `json:"reason"`
	ElapsedMS int64  `json:"elapsed_ms"`
	Tail      string `json:"tail,omitempty"` // plain text, last lines
	// OutputBytes is how much output the log held at the detach: what the
	// caller shows as "the output so far".
	OutputBytes int64 `json:"output_bytes"`
}

// Status is a running task's live state.
type Status struct {
	Mode        bgtasks.Mode `json:"mode"`
	PID         int          `json:"pid"`
	OutputBytes int64        `json:"output_bytes"`
	// EchoOff says the task's terminal reads a line without echoing it (a
	// password prompt, read -s): a front end then hides what is typed too.
	// A program in raw mode (a REPL with line editing, an editor) turns echo
	// off to echo by itself, so only echo off in line mode counts.
	EchoOff bool `json:"echo_off,omitempty"`
}

func (s *supervisor) listen() (net.Listener, error) {
	path := s.socketPath()
	if len(path) >= len(unix.RawSockaddrUnix{}.Path) {
		return nil, fmt.Errorf("socket path %s is too long for a unix socket (limit %d); set HANGDOG_HOME to a shorter directory", path, len(unix.RawSockaddrUnix{}.Path)-1)
	}
	os.Remove(path)
	// The task dir is 0700 already; the umask makes the socket itself 0600 from
	// the moment it exists, with no window before a chmod.
	old := unix.Umask(0o177)
	ln, err := net.Listen("unix", path)
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
	if !sameUser(c) {
		return
	}
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	line, err := bufio.NewReaderSize(c, 64<<10).ReadBytes('\n')
	if err != nil {
		return
	}
	c.SetReadDeadline(time.Time{})
	var req request
	var rep reply
	if err := json.Unmarshal(line, &req); err != nil {
		rep.Error = "malformed request: " + err.Error()
	} else {
		rep = s.handle(req)
	}
	b, _ := json.Marshal(rep)
	c.Write(append(b, '\n'))
}

// sameUser allows only peers of this process's own uid.
func sameUser(c net.Conn) bool {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return false
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return false
	}
	var cred *unix.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil || cerr != nil {
		return false
	}
	return int(cred.Uid) == os.Getuid()
}

func (s *supervisor) handle(req request) reply {
	switch req.Op {
	case "status":
		s.mu.Lock()
		st := &Status{Mode: s.meta.Mode, PID: s.pid, OutputBytes: s.written.Load()}
		s.mu.Unlock()
		st.EchoOff = s.echoOff()
		return reply{OK: true, Status: st}
	case "detach":
		d, err := s.detach(req.Reason)
		if err != nil {
			return reply{Error: err.Error()}
		}
		return reply{OK: true, Detach: &d}
	case "kill":
		sig := syscall.Signal(req.Signal)
		if sig == 0 {
			sig = syscall.SIGTERM
		}
		grace := time.Duration(req.GraceMS) * time.Millisecond
		if grace <= 0 {
			grace = defaultGrace
		}
		reason := req.Reason
		if reason == "" {
			reason = "killed with `hangdog bg kill`"
		}
		if s.isEnded() {
			return reply{Error: s.endedMessage()}
		}
		s.kill(sig, grace, reason)
		<-s.ended
		s.mu.Lock()
		res := s.result
		s.mu.Unlock()
		return reply{OK: true, Result: &res}
	case "send":
		if s.isEnded() {
			return reply{Error: s.endedMessage()}
		}
		if _, err := s.master.Write(req.Data); err != nil {
			return reply{Error: fmt.Sprintf("write to task %s's terminal: %v", s.meta.ID, err)}
		}
		return reply{OK: true}
	case "resize":
		if err := setWinsize(s.master, req.Rows, req.Cols); err != nil {
			return reply{Error: err.Error()}
		}
		return reply{OK: true}
	}
	return reply{Error: fmt.Sprintf("unknown operation %q", req.Op)}
}

func (s *supervisor) isEnded() bool {
	select {
	case <-s.ended:
		return true
	default:
		return false
	}
}

func (s *supervisor) endedMessage() string {
	return fmt.Sprintf("task %s has already ended; `hangdog bg logs %s` shows its output", s.meta.ID, s.meta.ID)
}

var errAlreadyBackground = errors.New("already in the background")

// detach moves a foreground run to the background: the record first, then
// the event, then the caller is told and let go. The command is untouched.
func (s *supervisor) detach(reason string) (Detach, error) {
	if reason == "" {
		reason = "detached on request"
	}
	s.mu.Lock()
	if s.isEnded() || s.killDone != nil {
		s.mu.Unlock()
		return Detach{}, fmt.Errorf("task %s is ending; nothing to detach", s.meta.ID)
	}
	if s.meta.Mode == bgtasks.Background {
		s.mu.Unlock()
		return Detach{}, fmt.Errorf("task %s is %w", s.meta.ID, errAlreadyBackground)
	}
	now := time.Now()
	s.meta.Mode = bgtasks.Background
	s.meta.DetachedAt = &now
	s.meta.DetachReason = reason
	meta := s.meta
	s.mu.Unlock()

	if err := s.reg.WriteMeta(meta); err != nil {
		fmt.Fprintln(os.Stderr, "hangdog supervisor:", err)
	}
	d := Detach{
		TaskID: meta.ID, Reason: reason, ElapsedMS: now.Sub(meta.Started).Milliseconds(),
		Tail:        s.lastLines(),
		OutputBytes: s.written.Load(),
	}
	if _, err := s.reg.AppendEvent(bgtasks.Event{
		Kind: bgtasks.EventDetached, TaskID: meta.ID, Command: meta.Command,
		DurationMS: d.ElapsedMS, Reason: reason, Tail: d.Tail,
	}); err != nil {
		fmt.Fprintln(os.Stderr, "hangdog supervisor:", err)
	}
	b, _ := json.Marshal(d)
	s.linkMu.Lock()
	if s.link != nil {
		writeFrame(s.link, frameDetached, b)
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
