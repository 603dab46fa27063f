//go:build linux

package supervisor

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/hangdog/hangdog/supervisor/watchdog"
)

// endStdin answers a command that reads its terminal with no prompt shown
// (`wc -l`, `cat > f`, a filter given no file) as a pipe would: with end of
// input, once, instead of moving it to the background. Only for a caller
// nobody is at, under the agent profile (Spec.AgentProfile): there a plain read
// of stdin can only mean the command expected input it will never get,
// while a prompt, a password or a full-screen program is still detached and
// answerable. It reports whether it did.
func (s *supervisor) endStdin(d watchdog.Decision) bool {
	if !s.spec.AgentProfile || d.Trigger != watchdog.TriggerInput || d.InputKind != watchdog.InputStdin || s.stdinEnded {
		return false
	}
	s.stdinEnded = true // a command that reads on after end of input is detached as any other
	eof := byte(4)      // ^D, unless the terminal says otherwise
	if t, err := unix.IoctlGetTermios(int(s.master.Fd()), unix.TCGETS); err == nil && t.Cc[unix.VEOF] != 0 {
		eof = t.Cc[unix.VEOF]
	}
	if _, err := s.master.Write([]byte{eof}); err != nil {
		fmt.Fprintln(os.Stderr, "hangdog supervisor: end of input:", err)
		return false
	}
	fmt.Fprintf(os.Stderr, "hangdog supervisor: %s read its terminal with no prompt and nobody at it: sent end of input (agent profile)\n", s.meta.ID)
	return true
}
