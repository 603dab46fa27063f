//go:build linux

package supervisor

import (
	"encoding/binary"

	"golang.org/x/sys/unix"
)

// readerWake lets the drain wake the PTY reader, which otherwise waits in
// poll with no timeout: an idle supervisor then sleeps until its command
// prints something, where a poll timeout of 50 ms used to wake it 20 times a
// second, and with it the runtime's sysmon thread, which keeps waking every
// few milliseconds while a goroutine keeps going in and out of system calls
// (about 65 wake-ups a second per idle supervisor in all).
type readerWake struct{ fd int }

// newReaderWake makes the eventfd the drain writes to; nil if the kernel
// has none, and the reader then polls with a timeout as before.
func newReaderWake() *readerWake {
	fd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		return nil
	}
	return &readerWake{fd: fd}
}

// pollFds is what the reader polls: the PTY master, and the wake-up if any.
func (w *readerWake) pollFds(pty int) []unix.PollFd {
	pfd := []unix.PollFd{{Fd: int32(pty), Events: unix.POLLIN}}
	if w != nil {
		pfd = append(pfd, unix.PollFd{Fd: int32(w.fd), Events: unix.POLLIN})
	}
	return pfd
}

// timeout is the poll timeout in milliseconds: none with a wake-up to end
// the wait, else 50 ms so the drain's request is seen promptly.
func (w *readerWake) timeout() int {
	if w != nil {
		return -1
	}
	return 50
}

// wake ends the reader's current (or next) poll.
func (w *readerWake) wake() {
	if w == nil {
		return
	}
	var one [8]byte
	binary.NativeEndian.PutUint64(one[:], 1)
	unix.Write(w.fd, one[:])
}

// stopReader tells the PTY reader to stop, and wakes it if it is waiting.
func (s *supervisor) stopReader() {
	s.stopReading.Store(true)
	s.wake.wake()
}
