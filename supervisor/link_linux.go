//go:build linux

package supervisor

import (
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/supervisor/proto"
)

// sendFrame writes a frame to the caller if one is attached; a failed write
// means the caller is gone, which readLink handles.
func (s *supervisor) sendFrame(kind proto.Frame, p []byte) {
	s.linkMu.Lock()
	defer s.linkMu.Unlock()
	if s.link == nil {
		return
	}
	if err := proto.WriteFrame(s.link, kind, p); err != nil {
		s.link.Close()
		s.link = nil
	}
}

// readLink serves the caller's frames; when the caller goes away while the
// task is still its foreground run, the task goes with it.
func (s *supervisor) readLink() {
	s.linkMu.Lock()
	c := s.link
	s.linkMu.Unlock()
	if c == nil {
		return
	}
	fr := proto.NewFrameReader(c)
	for {
		kind, p, err := fr.Next()
		if err != nil {
			break
		}
		switch kind {
		case proto.FrameInput:
			s.master.Write(p)
		case proto.FrameResize:
			if rows, cols, ok := proto.DecodeResize(p); ok {
				setWinsize(s.master, rows, cols)
			}
		case proto.FrameStop:
			if len(p) == 1 {
				sig := syscall.Signal(p[0])
				go s.kill(sig, defaultGrace, fmt.Sprintf("its caller was interrupted (%s)", unix.SignalName(sig)))
			}
		}
	}
	s.mu.Lock()
	mode := s.meta.Mode
	s.mu.Unlock()
	select {
	case <-s.ended:
		return
	default:
	}
	if mode == bgtasks.Foreground {
		s.kill(syscall.SIGTERM, defaultGrace, "its caller exited before it finished (a foreground run belongs to its caller; detach it to keep it)")
	}
}
