//go:build linux

package supervisor

import (
	"fmt"
	"os"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// openPTY returns a PTY pair whose master is non-blocking. The output loop
// reads it with plain read and poll on a thread of its own, not through Go's
// poller (see readAvailable): a read that finds nothing must return EAGAIN
// rather than block, so the loop waits in a poll of bounded length and sees
// the drain's stop request. creack/pty hands back a blocking master, so its
// descriptor is re-wrapped.
func openPTY() (master, slave *os.File, err error) {
	m, s, err := pty.Open()
	if err != nil {
		return nil, nil, fmt.Errorf("open a pseudo-terminal: %w", err)
	}
	fd, err := unix.FcntlInt(m.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	m.Close()
	if err != nil {
		s.Close()
		return nil, nil, fmt.Errorf("duplicate pty master: %w", err)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		s.Close()
		return nil, nil, fmt.Errorf("make pty master non-blocking: %w", err)
	}
	master = os.NewFile(uintptr(fd), "/dev/ptmx")
	if err := rawOutput(s); err != nil {
		master.Close()
		s.Close()
		return nil, nil, err
	}
	return master, s, nil
}

// rawOutput turns off output post-processing on the slave so the bytes a
// program writes are the bytes recorded (no \n → \r\n); input handling, echo
// and signals stay as a terminal has them.
func rawOutput(slave *os.File) error {
	fd := int(slave.Fd())
	t, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return fmt.Errorf("read terminal settings: %w", err)
	}
	t.Oflag &^= unix.OPOST
	if err := unix.IoctlSetTermios(fd, unix.TCSETS, t); err != nil {
		return fmt.Errorf("set terminal settings: %w", err)
	}
	return nil
}

func setWinsize(master *os.File, rows, cols uint16) error {
	if rows == 0 || cols == 0 {
		rows, cols = 24, 80
	}
	ws := &unix.Winsize{Row: rows, Col: cols}
	var ierr error
	err := withFd(master, func(fd int) { ierr = unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, ws) })
	if err == nil {
		err = ierr
	}
	if err != nil {
		return fmt.Errorf("set terminal size %dx%d: %w", cols, rows, err)
	}
	return nil
}

// withFd runs f on f's descriptor without switching it to blocking mode, as
// File.Fd would.
func withFd(f *os.File, fn func(fd int)) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	return rc.Control(func(fd uintptr) { fn(int(fd)) })
}
