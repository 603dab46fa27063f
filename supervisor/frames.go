package supervisor

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
)

// Frame kinds on the caller link. Upper case flows supervisor → caller,
// lower case caller → supervisor.
const (
	frameStarted  byte = 'S' // JSON startedInfo
	frameOffset   byte = 'N' // 8-byte big-endian count of output bytes now in output.log
	frameDetached byte = 'D' // JSON Detach
	frameWarning  byte = 'W' // text
	frameVerdict  byte = 'V' // JSON Verdict: the latest check, for status bars
	frameEnded    byte = 'E' // JSON bgtasks.Result
	frameFailed   byte = 'F' // text: the command could not be started

	frameHandover byte = 'h' // the task (binstruct, see handover), first frame of every link
	frameInput    byte = 'i' // bytes for the terminal
	frameResize   byte = 'r' // rows, cols as two big-endian uint16
	frameStop     byte = 'k' // signal number as one byte
)

// maxFrame bounds a frame so a corrupt length cannot make a reader allocate
// without limit; output is sent in chunks far below it.
const maxFrame = 4 << 20

func writeFrame(w io.Writer, kind byte, payload []byte) error {
	var hdr [5]byte
	hdr[0] = kind
	binary.BigEndian.PutUint32(hdr[1:], uint32(len(payload)))
	if len(payload) == 0 {
		_, err := w.Write(hdr[:])
		return err
	}
	// Header and payload leave in one writev on a connection, without a copy.
	bufs := net.Buffers{hdr[:], payload}
	_, err := bufs.WriteTo(w)
	return err
}

// frameReader reads frames, reusing its buffer: a payload is valid only until
// the next call.
type frameReader struct {
	r   io.Reader
	buf []byte
}

func (fr *frameReader) next() (byte, []byte, error) {
	var hdr [5]byte
	if _, err := io.ReadFull(fr.r, hdr[:]); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(hdr[1:])
	if n > maxFrame {
		return 0, nil, fmt.Errorf("frame of %d bytes exceeds the %d limit: %w", n, maxFrame, errCorruptLink)
	}
	if cap(fr.buf) < int(n) {
		fr.buf = make([]byte, n)
	}
	p := fr.buf[:n]
	if _, err := io.ReadFull(fr.r, p); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return 0, nil, err
	}
	return hdr[0], p, nil
}

var errCorruptLink = errors.New("corrupt caller link")
