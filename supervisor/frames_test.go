package supervisor

import (
	"bytes"
	"errors"
	"net"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

func socketPair(t *testing.T) (net.Conn, net.Conn) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	conn := func(fd int) net.Conn {
		f := os.NewFile(uintptr(fd), "pair")
		defer f.Close()
		c, err := net.FileConn(f)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	return conn(fds[0]), conn(fds[1])
}

func TestFramesRoundTripOverASocket(t *testing.T) {
	a, b := socketPair(t)
	big := bytes.Repeat([]byte{0, 0xff, '\n'}, 300000) // larger than a socket buffer
	frames := []struct {
		kind byte
		p    []byte
	}{{frameWarning, []byte("hello")}, {frameEnded, nil}, {frameWarning, big}, {frameInput, []byte{0x03}}}
	go func() {
		for _, f := range frames {
			if err := writeFrame(a, f.kind, f.p); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	fr := frameReader{r: b}
	for i, want := range frames {
		kind, p, err := fr.next()
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if kind != want.kind || !bytes.Equal(p, want.p) {
			t.Fatalf("frame %d: kind %q, %d bytes; want %q, %d bytes", i, kind, len(p), want.kind, len(want.p))
		}
	}
}

func TestFrameReaderRefusesAnOversizedFrame(t *testing.T) {
	hdr := []byte{frameWarning, 0xff, 0xff, 0xff, 0xff}
	fr := frameReader{r: bytes.NewReader(hdr)}
	if _, _, err := fr.next(); !errors.Is(err, errCorruptLink) {
		t.Errorf("err = %v, want errCorruptLink", err)
	}
}

func TestFrameReaderReportsATruncatedFrame(t *testing.T) {
	var buf bytes.Buffer
	writeFrame(&buf, frameWarning, []byte("complete payload"))
	fr := frameReader{r: bytes.NewReader(buf.Bytes()[:buf.Len()-3])}
	if _, _, err := fr.next(); err == nil {
		t.Error("a truncated frame was accepted")
	}
}
