//go:build linux

// Package rawterm puts a person's terminal into the mode a supervised
// command needs: every keystroke passed through as typed, while output
// processing stays on so a command's bare \n still starts a new line (hangdog
// turns output processing off on its own PTYs to keep logs byte-exact).
package rawterm

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// MakeRaw switches fd to raw input and returns the function that restores
// the previous settings.
func MakeRaw(fd int) (restore func() error, err error) {
	old, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return nil, fmt.Errorf("read terminal settings: %w", err)
	}
	raw := *old
	raw.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
	raw.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	raw.Cflag &^= unix.CSIZE | unix.PARENB
	raw.Cflag |= unix.CS8
	raw.Oflag |= unix.OPOST | unix.ONLCR
	raw.Cc[unix.VMIN], raw.Cc[unix.VTIME] = 1, 0
	if err := unix.IoctlSetTermios(fd, unix.TCSETS, &raw); err != nil {
		return nil, fmt.Errorf("set terminal to raw mode: %w", err)
	}
	return func() error { return unix.IoctlSetTermios(fd, unix.TCSETS, old) }, nil
}
