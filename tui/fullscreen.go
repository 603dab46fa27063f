package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
	"golang.org/x/term"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/internal/rawterm"
	"github.com/hangdog/hangdog/taskctl"
)

// ctrlB is what the Ctrl+B key sends; it detaches a full-screen program.
const ctrlB = 0x02

// resetModes undoes what a full-screen program may have left switched on
// when it is detached mid-session: alternate screen, hidden cursor,
// application keypad and cursor keys, mouse reporting, bracketed paste, SGR.
// No newline follows: the shell repaints its own screen, and a newline
// here would move the cursor on the main screen the person returns to.
const resetModes = "\x1b[?1049l\x1b[?25h\x1b[?1l\x1b>\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?2004l\x1b[0m"

// A program that draws full screen without the alternate screen (top, which
// only switches to application cursor keys) is given one all the same:
// otherwise its frames land on the main screen, and stay there, under
// the shell's, after the shell quits.
const (
	enterAlt = "\x1b[?1049h"
	leaveAlt = "\x1b[?1049l"
)

// fullscreen hands the real terminal to a full-screen program: keystrokes go
// raw to its PTY, its output raw to the terminal, until it leaves the
// alternate screen, ends, or Ctrl+B detaches it. It is a tea.ExecCommand, so
// bubbletea has let go of the terminal while Run runs.
type fullscreen struct {
	fg     *foreground
	reg    *bgtasks.Registry
	stdin  io.Reader
	stdout io.Writer
}

func (x *fullscreen) SetStdin(r io.Reader)  { x.stdin = r }
func (x *fullscreen) SetStdout(w io.Writer) { x.stdout = w }
func (x *fullscreen) SetStderr(io.Writer)   {}

func (x *fullscreen) Run() error {
	f := x.fg
	in, ok := x.stdin.(*os.File)
	if !ok || !term.IsTerminal(int(in.Fd())) {
		return errors.New("a full-screen program needs the shell to run in a terminal")
	}
	fd := int(in.Fd())
	restore, err := rawterm.MakeRaw(fd)
	if err != nil {
		return err
	}
	defer restore()
	if out, ok := x.stdout.(*os.File); ok {
		if ws, err := pty.GetsizeFull(out); err == nil {
			f.link.Resize(ws.Rows, ws.Cols)
		}
	}

	f.mu.Lock()
	lent := !f.ownAlt
	if lent {
		x.stdout.Write([]byte(enterAlt))
	}
	x.stdout.Write(f.pending.Bytes())
	f.pending.Reset()
	leave := f.leave
	if f.sink == sinkPending {
		f.sink, f.term = sinkTerminal, x.stdout
	}
	f.mu.Unlock()

	err = x.relay(in, leave)

	f.mu.Lock()
	if lent {
		x.stdout.Write([]byte(leaveAlt))
	}
	if f.sink == sinkTerminal {
		// Still full screen: Ctrl+B or a failure ended the hand-over.
		f.sink = sinkDiscard
		x.stdout.Write([]byte(resetModes))
	}
	f.mu.Unlock()
	select {
	case <-f.ended:
		// It ended without leaving the alternate screen (a crash, a kill).
		x.stdout.Write([]byte(resetModes))
	default:
	}
	return err
}

// relay copies keystrokes to the task until the hand-over ends.
func (x *fullscreen) relay(in *os.File, leave chan struct{}) error {
	f := x.fg
	var wake [2]int
	if err := unix.Pipe2(wake[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
		return fmt.Errorf("create a wake-up pipe: %w", err)
	}
	defer unix.Close(wake[0])
	defer unix.Close(wake[1])
	stop := make(chan struct{})
	defer close(stop)
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	defer signal.Stop(winch)
	// This goroutine turns the ways a hand-over ends into a readable pipe for
	// poll, and forwards resizes; it ends with relay.
	go func() {
		for {
			select {
			case <-leave:
			case <-f.ended:
			case <-winch:
				if out, ok := x.stdout.(*os.File); ok {
					if ws, err := pty.GetsizeFull(out); err == nil {
						f.link.Resize(ws.Rows, ws.Cols)
					}
				}
				continue
			case <-stop:
				return
			}
			unix.Write(wake[1], []byte{1})
			return
		}
	}()

	buf := make([]byte, 4096)
	fds := []unix.PollFd{{Fd: int32(in.Fd()), Events: unix.POLLIN}, {Fd: int32(wake[0]), Events: unix.POLLIN}}
	for {
		fds[0].Revents, fds[1].Revents = 0, 0
		if _, err := unix.Poll(fds, -1); err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return fmt.Errorf("wait for keystrokes: %w", err)
		}
		if fds[1].Revents != 0 {
			return nil
		}
		if fds[0].Revents&(unix.POLLIN|unix.POLLHUP|unix.POLLERR) == 0 {
			continue
		}
		n, err := unix.Read(int(in.Fd()), buf)
		if n <= 0 || err != nil {
			if errors.Is(err, unix.EINTR) || errors.Is(err, unix.EAGAIN) {
				continue
			}
			return fmt.Errorf("read keystrokes: %w", err)
		}
		keys := buf[:n]
		if i := indexByte(keys, ctrlB); i >= 0 {
			if i > 0 {
				f.link.Input(keys[:i])
			}
			return x.detach()
		}
		if err := f.link.Input(keys); err != nil {
			return nil // the link is gone; the feeder reports how it ended
		}
	}
}

func (x *fullscreen) detach() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return detachTask(ctx, x.reg, x.fg.id, "detached with Ctrl+B")
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

// detachTask moves a running foreground task to the background.
func detachTask(ctx context.Context, reg *bgtasks.Registry, id, reason string) error {
	if _, err := taskctl.DetachRun(ctx, reg, id, reason); err != nil {
		return fmt.Errorf("detach %s: %w", id, err)
	}
	return nil
}
