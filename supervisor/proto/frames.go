package proto

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
)

// Frame is the kind of a frame on the caller link. Upper case flows
// supervisor → caller, lower case caller → supervisor.
type Frame byte

const (
	FrameStarted  Frame = 'S' // JSON Started
	FrameOffset   Frame = 'N' // Offset: how many output bytes the task's log now holds
	FrameDetached Frame = 'D' // JSON Detach
	FrameWarning  Frame = 'W' // text
	FrameVerdict  Frame = 'V' // JSON Verdict: the latest check, for status bars
	FrameEnded    Frame = 'E' // JSON Result
	FrameFailed   Frame = 'F' // text: the command could not be started
	// FrameData carries output the log could not take (a full disk): an
	// 8-byte big-endian count of the bytes the log held before it, then the
	// bytes. From the log's first failed write on, the log stays the exact
	// prefix it is and every later byte reaches the caller this way.
	FrameData Frame = 'O'

	FrameHandover Frame = 'h' // the task (binstruct, see Handover), first frame of every link
	FrameInput    Frame = 'i' // bytes for the terminal
	FrameResize   Frame = 'r' // Resize: rows, cols
	FrameStop     Frame = 'k' // signal number as one byte
)

// MaxFrame bounds a frame so a corrupt length cannot make a reader allocate
// without limit; output is sent in chunks far below it.
const MaxFrame = 4 << 20

// WriteFrame writes one frame. Callers that share a writer serialise their
// calls.
func WriteFrame(w io.Writer, kind Frame, payload []byte) error {
	var hdr [5]byte
	hdr[0] = byte(kind)
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

// FrameReader reads frames, reusing its buffer: a payload is valid only
// until the next call.
type FrameReader struct {
	r   io.Reader
	buf []byte
}

// NewFrameReader reads frames from r. It reads no further than the frame it
// returns, so r may be handed on between frames.
func NewFrameReader(r io.Reader) *FrameReader { return &FrameReader{r: r} }

// Next returns the next frame's kind and payload.
func (fr *FrameReader) Next() (Frame, []byte, error) {
	var hdr [5]byte
	if _, err := io.ReadFull(fr.r, hdr[:]); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(hdr[1:])
	if n > MaxFrame {
		return 0, nil, fmt.Errorf("frame of %d bytes exceeds the %d limit: %w", n, MaxFrame, ErrCorruptLink)
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
	return Frame(hdr[0]), p, nil
}

// ErrCorruptLink means a frame could not be read as one: the two ends are
// out of step, and the link is finished.
var ErrCorruptLink = errors.New("corrupt caller link")
