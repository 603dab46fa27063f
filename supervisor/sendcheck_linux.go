//go:build linux

package supervisor

import (
	"bytes"
	"fmt"

	"golang.org/x/sys/unix"
)

// maxCanonLine is the most a terminal in line mode keeps of one line (the
// kernel's 4096-byte line buffer, less the end of line); the rest of a
// longer line is dropped without an error.
const maxCanonLine = 4095

// checkSendable refuses input the terminal would cut short: with the task's
// terminal in line mode (ICANON, as for a shell's read or most prompts), a
// line longer than maxCanonLine would silently lose its end. In raw mode
// (editors, full-screen programs, a program that turned line mode off)
// anything goes.
func (s *supervisor) checkSendable(p []byte) error {
	if len(p) <= maxCanonLine {
		return nil
	}
	rc, err := s.master.SyscallConn()
	if err != nil {
		return nil
	}
	var canon bool
	rc.Control(func(fd uintptr) {
		// Termios requests on a PTY master act on its slave's settings.
		if t, err := unix.IoctlGetTermios(int(fd), unix.TCGETS); err == nil {
			canon = t.Lflag&unix.ICANON != 0
		}
	})
	if !canon {
		return nil
	}
	longest := 0
	for line := range bytes.FieldsFuncSeq(p, func(r rune) bool { return r == '\n' || r == '\r' }) {
		longest = max(longest, len(line))
	}
	if longest <= maxCanonLine {
		return nil
	}
	return fmt.Errorf("nothing was sent: task %s's terminal is in line mode, where one line holds at most %d bytes, and this input has a line of %d bytes, which the terminal would cut short; split it into shorter lines, or have the program read it from a file", s.meta.ID, maxCanonLine, longest)
}
