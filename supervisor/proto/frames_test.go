package proto

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
		kind Frame
		p    []byte
	}{{FrameWarning, []byte("hello")}, {FrameEnded, nil}, {FrameWarning, big}, {FrameInput, []byte{0x03}}}
	go func() {
		for _, f := range frames {
			if err := WriteFrame(a, f.kind, f.p); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	fr := NewFrameReader(b)
	for i, want := range frames {
		kind, p, err := fr.Next()
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if kind != want.kind || !bytes.Equal(p, want.p) {
			t.Fatalf("frame %d: kind %q, %d bytes; want %q, %d bytes", i, kind, len(p), want.kind, len(want.p))
		}
	}
}

func TestFrameReaderRefusesAnOversizedFrame(t *testing.T) {
	hdr := []byte{byte(FrameWarning), 0xff, 0xff, 0xff, 0xff}
	fr := NewFrameReader(bytes.NewReader(hdr))
	if _, _, err := fr.Next(); !errors.Is(err, ErrCorruptLink) {
		t.Errorf("err = %v, want ErrCorruptLink", err)
	}
}

func TestFrameReaderReportsATruncatedFrame(t *testing.T) {
	var buf bytes.Buffer
	WriteFrame(&buf, FrameWarning, []byte("complete payload"))
	fr := NewFrameReader(bytes.NewReader(buf.Bytes()[:buf.Len()-3]))
	if _, _, err := fr.Next(); err == nil {
		t.Error("a truncated frame was accepted")
	}
}
