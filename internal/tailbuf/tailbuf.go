// Package tailbuf keeps the last bytes of an unbounded stream in fixed memory,
// so a result or a detach notice can carry the output so far.
package tailbuf

import "sync"

// Buffer keeps the last bytes written; safe for concurrent use.
type Buffer struct {
	mu    sync.Mutex
	buf   []byte
	start int // index of the oldest byte when full
	full  bool
	total int64
}

// New returns a Buffer that keeps the last capacity bytes.
func New(capacity int) *Buffer { return &Buffer{buf: make([]byte, 0, capacity)} }

// Write keeps the tail of p; it never fails.
func (t *Buffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	t.total += int64(n)
	c := cap(t.buf)
	if n >= c {
		t.buf = append(t.buf[:0], p[n-c:]...)
		t.start, t.full = 0, true
		return n, nil
	}
	if !t.full {
		room := c - len(t.buf)
		if n <= room {
			t.buf = append(t.buf, p...)
			return n, nil
		}
		t.buf = append(t.buf, p[:room]...)
		p = p[room:]
		t.full = true
		t.start = 0
	}
	for len(p) > 0 {
		k := copy(t.buf[t.start:], p)
		p = p[k:]
		t.start = (t.start + k) % c
	}
	return n, nil
}

// Bytes returns a copy of the tail and how many earlier bytes were dropped.
func (t *Buffer) Bytes() ([]byte, int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]byte, 0, len(t.buf))
	if t.full {
		out = append(out, t.buf[t.start:]...)
		out = append(out, t.buf[:t.start]...)
	} else {
		out = append(out, t.buf...)
	}
	return out, t.total - int64(len(out))
}

// Total is how many bytes were ever written.
func (t *Buffer) Total() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.total
}
