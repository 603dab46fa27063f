//go:build linux

package sampler

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// ptsMajor is the character-device major of every /dev/pts/N.
const ptsMajor = 136

// terminal identifies the task's PTY slave: the path its fds show and the
// device number /proc/PID/stat reports as tty_nr.
type terminal struct {
	path string
	dev  int
}

func (t terminal) known() bool { return t.dev != 0 }

// is reports whether an fd target is this terminal: its /dev/pts/N path, or
// /dev/tty opened by a process whose controlling terminal is this one (sudo
// and ssh read passwords from /dev/tty).
func (t terminal) is(target string, ttyNr int) bool {
	if !t.known() || target == "" {
		return false
	}
	return target == t.path || (target == "/dev/tty" && ttyNr == t.dev)
}

func terminalFromNumber(n uint32) terminal {
	path := "/dev/pts/" + strconv.FormatUint(uint64(n), 10)
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err == nil && st.Mode&unix.S_IFMT == unix.S_IFCHR {
		return terminal{path: path, dev: int(st.Rdev)}
	}
	return terminal{path: path, dev: int(unix.Mkdev(ptsMajor, n))}
}

// terminalFromTTYNr names the terminal from a process's tty_nr, for samplers
// made without the PTY master.
func terminalFromTTYNr(ttyNr int) terminal {
	if ttyNr <= 0 || unix.Major(uint64(ttyNr)) != ptsMajor {
		return terminal{}
	}
	return terminal{path: "/dev/pts/" + strconv.FormatUint(uint64(unix.Minor(uint64(ttyNr))), 10), dev: ttyNr}
}

// ptyState is what the PTY master tells about its slave.
type ptyState struct {
	term terminal
	fg   int
	mode TTYMode
}

// readPTY asks the master for the slave's number, foreground process group
// and termios (both ioctls on a master answer for the slave). It goes through
// SyscallConn because File.Fd would switch the master to blocking mode under
// the supervisor's reader.
func readPTY(master *os.File, known terminal) (ptyState, error) {
	st := ptyState{term: known}
	conn, err := master.SyscallConn()
	if err != nil {
		return st, err
	}
	var ioErr error
	err = conn.Control(func(fd uintptr) {
		if !st.term.known() {
			n, err := unix.IoctlGetUint32(int(fd), unix.TIOCGPTN)
			if err != nil {
				ioErr = err
				return
			}
			st.term = terminalFromNumber(n)
		}
		if pgrp, err := unix.IoctlGetInt(int(fd), unix.TIOCGPGRP); err == nil && pgrp > 0 {
			st.fg = pgrp
		}
		if tio, err := unix.IoctlGetTermios(int(fd), unix.TCGETS); err == nil {
			st.mode = modeOf(tio.Lflag)
		}
	})
	if err != nil {
		return st, err
	}
	return st, ioErr
}

func modeOf(lflag uint32) TTYMode {
	switch {
	case lflag&unix.ICANON == 0:
		return TTYRaw
	case lflag&unix.ECHO == 0:
		return TTYSecret
	default:
		return TTYLine
	}
}

// ttyReadWchans are the kernel functions a reader of a tty sleeps in.
func ttyReadWchan(w string) bool {
	switch w {
	case "n_tty_read", "wait_woken", "tty_read":
		return true
	}
	return false
}

// terminalMode reads the mode of a terminal inside the task's terminal by
// its slave's path, opened without becoming anyone's controlling terminal
// and closed at once.
func terminalMode(path string) (TTYMode, bool) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return TTYUnknown, false
	}
	defer unix.Close(fd)
	tio, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return TTYUnknown, false
	}
	return modeOf(tio.Lflag), true
}
