//go:build linux

package supervisor

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hangdog/hangdog/supervisor/proto"
)

// readOutput copies every byte from the PTY to the output log first, then to
// the tail and the caller. Writing the log before anything else is what lets
// a crash of any hangdog process lose nothing already read.
func (s *supervisor) readOutput() {
	defer close(s.readerDone)
	// One thread for the whole copy loop: otherwise, each time the scheduler
	// hands this goroutine's P to another goroutine while it waits in a read,
	// the goroutine resumes on another thread, and every such hop is a futex
	// wake-up on the path of each 4 KB the PTY hands out.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	fd := -1
	if rc, err := s.master.SyscallConn(); err == nil {
		rc.Control(func(f uintptr) { fd = int(f) })
	}
	if fd < 0 {
		fmt.Fprintln(os.Stderr, "hangdog supervisor: pty master has no descriptor")
		return
	}
	buf := make([]byte, 256<<10)
	pfd := s.wake.pollFds(fd)
	var queries queryScanner
	answers := make(chan struct{}, 8)
	defer close(answers)
	go answerCursorQueries(s.master, answers)
	for {
		n, err := s.readAvailable(fd, buf, pfd)
		if n > 0 {
			p := buf[:n]
			s.logOutput(p)
			if k := queries.scan(p); k > 0 && s.noTerminal.Load() {
				for range k {
					select {
					case answers <- struct{}{}:
					default:
					}
				}
			}
			s.activity.Write(p)
			s.lastRead.Store(time.Now().UnixNano())
			select {
			case s.outputReady <- struct{}{}:
			default: // a notice is already pending; it will carry the new count
			}
		}
		if err != nil {
			return // EIO once every slave fd is closed, or the drain is over
		}
	}
}

// notifyOutput tells the caller how much output the log holds. The caller
// copies it from the log itself, so the command is never slowed by its
// caller and the bytes cross no socket: the supervisor only says "up to N".
// A slow caller just gets fewer, larger notices. It runs until the process
// ends.
func (s *supervisor) notifyOutput() {
	var last int64
	for range s.outputReady {
		n := s.written.Load()
		if n == last {
			continue
		}
		last = n
		s.sendFrame(proto.FrameOffset, proto.EncodeOffset(n))
		// While output streams, one notice per pause carries everything
		// that arrived meanwhile: the caller wakes a few hundred times a
		// second instead of once per 4 KB, and the first bytes after a
		// quiet spell still go out at once.
		time.Sleep(noticePause)
	}
}

// errDrained ends the output loop once the drain decides nothing more is due.
var errDrained = errors.New("drain finished")

// readAvailable reads what the PTY has, waiting for output if it has none.
// It reads first and polls only once a read finds nothing: a PTY read with
// no data at hand already waits for the tty layer to finish moving what the
// command wrote (as poll does), so while output streams nearly every read
// returns data and a poll before each would double the system calls per
// 4 KB, which is what the kernel hands out per read. It uses plain system
// calls on this goroutine's thread instead of Go's network poller: parking
// and waking a goroutine for every 4 KB costs more than the copy. The
// master's descriptor stays owned by its *os.File, which is never closed
// while this runs.
func (s *supervisor) readAvailable(fd int, buf []byte, pfd []unix.PollFd) (int, error) {
	for {
		if s.stopReading.Load() {
			return 0, errDrained
		}
		n, err := unix.Read(fd, buf)
		switch {
		case n > 0:
			return n, nil
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
		case err != nil:
			return 0, err // EIO: no process holds the slave any more
		default:
			return 0, io.EOF
		}
		if err := s.waitReadable(pfd); err != nil {
			return 0, err
		}
	}
}

// waitReadable waits until the PTY has output (or has hung up), or the
// drain asks the reader to stop (see readerWake).
func (s *supervisor) waitReadable(pfd []unix.PollFd) error {
	for {
		k, err := unix.Poll(pfd, s.wake.timeout())
		switch {
		case err == unix.EINTR:
		case err != nil:
			return fmt.Errorf("poll pty: %w", err)
		case k > 0 && pfd[0].Revents != 0:
			return nil
		}
		if s.stopReading.Load() {
			return errDrained
		}
	}
}

// drain waits for the command's last output: until the PTY reports that no
// process holds the slave, or output has been quiet for drainQuiet (a
// background child may keep the slave open forever), at most drainMax.
func (s *supervisor) drain(exitAt time.Time) {
	deadline := exitAt.Add(drainMax)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-s.readerDone:
			return
		case now := <-tick.C:
			last := time.Unix(0, s.lastRead.Load())
			if last.Before(exitAt) {
				last = exitAt
			}
			if now.Sub(last) >= drainQuiet || now.After(deadline) {
				s.stopReader()
				<-s.readerDone
				return
			}
		}
	}
}

// lastLines is the end of the task's output as plain text, for an event or a
// detach notice. It is read back from the log, once, rather than kept in
// memory on the output path.
func (s *supervisor) lastLines() string {
	tail, err := s.reg.TailLines(s.meta.ID, eventTailLines, eventTailBytes)
	if err != nil {
		fmt.Fprintln(os.Stderr, "hangdog supervisor:", err)
	}
	return tail
}
