//go:build linux

package rawterm

import (
	"testing"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

func TestMakeRawKeepsOutputProcessingAndRestores(t *testing.T) {
	m, s, err := pty.Open()
	if err != nil {
		t.Skip("no pty:", err)
	}
	defer m.Close()
	defer s.Close()
	fd := int(s.Fd())
	before, _ := unix.IoctlGetTermios(fd, unix.TCGETS)
	restore, err := MakeRaw(fd)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := unix.IoctlGetTermios(fd, unix.TCGETS)
	if raw.Lflag&(unix.ICANON|unix.ECHO|unix.ISIG) != 0 {
		t.Errorf("still canonical/echo/signals: lflag %#x", raw.Lflag)
	}
	if raw.Oflag&(unix.OPOST|unix.ONLCR) != unix.OPOST|unix.ONLCR {
		t.Errorf("output processing off: oflag %#x", raw.Oflag)
	}
	if err := restore(); err != nil {
		t.Fatal(err)
	}
	after, _ := unix.IoctlGetTermios(fd, unix.TCGETS)
	if *after != *before {
		t.Errorf("not restored: %+v != %+v", after, before)
	}
}
