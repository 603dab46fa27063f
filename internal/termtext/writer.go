package termtext

import (
	"io"
	"slices"
	"unicode/utf8"
)

const (
	// maxLineCells bounds memory: a line longer than this many characters is
	// written out in pieces, and later carriage returns only reach back to the
	// start of the current piece.
	maxLineCells = 64 * 1024
	// outFlushSize is how much finished text is gathered before it is passed
	// on, so a huge single Write does not grow an unbounded buffer.
	outFlushSize = 32 * 1024
	// maxCursorJump caps how far one cursor-move sequence can move the cursor,
	// about the width of the widest real terminal. Padding to a far column
	// costs work, and without the cap a few hostile bytes could buy a 64 Ki
	// cell fill each.
	maxCursorJump = 1024
)

// Writer turns a stream of terminal output into plain text, line by line, and
// writes the text to an underlying writer. Escape sequences and multi-byte
// characters split across Write calls are handled; memory stays bounded
// however long the stream or its lines are. A Writer is not safe for
// concurrent use.
type Writer struct {
	dst io.Writer
	err error

	// The line being built, one rune per terminal cell, and the cursor in it.
	line []rune
	col  int
	// shown cells of line were already passed on by Flush; redrawn says one
	// of them has changed since, so the line must be shown again whole.
	shown   int
	redrawn bool

	tok Tokenizer

	out []byte
}

// NewWriter returns a Writer that writes plain text to dst. Finished lines are
// passed on as they complete; call Flush to also pass on an unfinished one,
// and Close at the end of the stream.
func NewWriter(dst io.Writer) *Writer {
	return &Writer{dst: dst, tok: Tokenizer{NewlineEndsString: true}}
}

// Write consumes terminal output. It fails only when the underlying writer
// has failed, and then keeps returning that error.
func (w *Writer) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	total := len(p)
	for len(p) > 0 {
		kind, n := w.tok.Next(p)
		p = p[n:]
		tok := w.tok.Token()
		switch kind {
		case KindText:
			w.putASCII(tok.Text)
		case KindRune:
			w.put(tok.Rune)
		case KindInvalid:
			// Each byte of a broken character becomes U+FFFD.
			for range tok.N {
				w.put(utf8.RuneError)
			}
		case KindControl:
			w.control(tok.Final)
		case KindCSI:
			// Private and intermediate forms are removed, not acted on.
			if tok.Private == 0 && tok.Inter == 0 {
				w.dispatchCSI(tok.Final, tok.Params)
			}
		}
	}
	w.flushOut()
	return total, w.err
}

// Flush passes on the unfinished last line, if any, so a prompt that waits
// without a newline can be seen. Parser state is kept, so an escape sequence
// or character split around a Flush still comes out right. Text that only
// extends the flushed line is appended to it; if a carriage return or erase
// then changes what was flushed, the line's new state starts a fresh line
// (a log cannot take back what it printed), so a follower sees each state
// of a progress bar on its own line.
func (w *Writer) Flush() error {
	if len(w.line) > w.shown || (w.redrawn && len(w.line) > 0) {
		w.writeLine(false)
		w.shown = len(w.line)
		w.redrawn = false
	}
	w.flushOut()
	return w.err
}

// Close ends the stream: an incomplete UTF-8 sequence becomes U+FFFD, an
// unterminated escape sequence is dropped and the last line is flushed. It
// does not close the underlying writer. The Writer may be used again
// afterwards for a new stream.
func (w *Writer) Close() error {
	for range w.tok.Reset() {
		w.put(utf8.RuneError)
	}
	err := w.Flush()
	w.resetLine()
	return err
}

// control applies a C0 control byte. Only newline, carriage return, backspace
// and tab have a visible effect; the rest (bell, NUL, shift in/out…) vanish.
func (w *Writer) control(b byte) {
	switch b {
	case '\n':
		w.emitLine(true)
	case '\r':
		w.col = 0
	case '\b':
		if w.col > 0 {
			w.col--
		}
	case '\t':
		w.put('\t')
	}
}

// dispatchCSI acts on the few sequences that change what a line shows: erase
// in line and horizontal cursor moves, which progress bars use instead of or
// alongside a carriage return. Everything else (colours, cursor up, screen
// clears, erase to the left…) is simply removed.
func (w *Writer) dispatchCSI(final byte, params []byte) {
	switch final {
	case 'K':
		n, ok := firstParam(params, 0)
		switch {
		case ok && n == 0:
			if w.col < len(w.line) {
				w.redrawn = w.redrawn || w.col < w.shown
				w.line = w.line[:w.col]
			}
		case ok && n == 2:
			// A terminal keeps the cursor where it was, so text written
			// next would follow a run of blanks. Those blanks carry no
			// text, and starting again at column 0 keeps erase-and-redraw
			// linear in the input.
			w.redrawn = w.redrawn || w.shown > 0
			w.line = w.line[:0]
			w.col = 0
		}
	case 'G', '`':
		if n, ok := firstParam(params, 1); ok {
			w.moveTo(min(max(n, 1), maxCursorJump) - 1)
		}
	case 'C':
		if n, ok := firstParam(params, 1); ok {
			w.moveTo(w.col + min(max(n, 1), maxCursorJump))
		}
	case 'D':
		if n, ok := firstParam(params, 1); ok {
			w.moveTo(w.col - max(n, 1))
		}
	}
}

// firstParam parses the first numeric parameter; ok is false for private or
// sub-parameter forms (`?`, `>`, `:`…) that this package does not interpret.
func firstParam(params []byte, def int) (n int, ok bool) {
	seen := false
	for _, c := range params {
		if c == ';' {
			break
		}
		if c < '0' || c > '9' {
			return 0, false
		}
		seen = true
		n = min(n*10+int(c-'0'), maxCursorJump)
	}
	if !seen {
		return def, true
	}
	return n, true
}

func (w *Writer) moveTo(col int) {
	w.col = min(max(col, 0), maxLineCells-1)
}

// put writes one character at the cursor, overwriting what is there, and
// pads with spaces when the cursor was moved past the end of the line. Only
// a capped cursor move leaves a gap, so padding work stays proportional to
// the input.
func (w *Writer) put(r rune) {
	if w.col >= maxLineCells {
		w.emitLine(false)
	}
	if w.col < w.shown {
		w.redrawn = true
	}
	if w.col < len(w.line) {
		w.line[w.col] = r
	} else {
		w.padTo(w.col)
		w.line = append(w.line, r)
	}
	w.col++
}

// putASCII is put for a run of printable ASCII, with a fast path for the
// common case of text appended at the end of the line.
func (w *Writer) putASCII(run []byte) {
	for len(run) > 0 {
		if w.col == len(w.line) && w.col < maxLineCells {
			n := min(len(run), maxLineCells-w.col)
			w.line = slices.Grow(w.line, n)[:w.col+n]
			cells := w.line[w.col:]
			for i, c := range run[:n] {
				cells[i] = rune(c)
			}
			w.col += n
			run = run[n:]
			continue
		}
		w.put(rune(run[0]))
		run = run[1:]
	}
}

// padTo extends the line with spaces up to column col.
func (w *Writer) padTo(col int) {
	old := len(w.line)
	if col <= old {
		return
	}
	w.line = slices.Grow(w.line, col-old+1)[:col]
	for i := old; i < col; i++ {
		w.line[i] = ' '
	}
}

// emitLine passes the line on, with a newline if it ended, and starts a
// new one.
func (w *Writer) emitLine(newline bool) {
	w.writeLine(newline)
	w.resetLine()
	if len(w.out) >= outFlushSize {
		w.flushOut()
	}
}

func (w *Writer) resetLine() {
	w.line = w.line[:0]
	w.col = 0
	w.shown = 0
	w.redrawn = false
}

// writeLine appends to out what has not been shown of the line yet: all of
// it, on a fresh line, when shown cells were redrawn since a Flush.
func (w *Writer) writeLine(newline bool) {
	out := w.out
	var cells []rune
	switch {
	case w.redrawn && len(w.line) > 0:
		out = append(out, '\n')
		cells = w.line
	case w.redrawn: // erased and not yet rewritten: nothing new to show
	default:
		cells = w.line[w.shown:]
	}
	out = slices.Grow(out, len(cells)+1)
	for _, r := range cells {
		if r < utf8.RuneSelf {
			out = append(out, byte(r))
		} else {
			out = utf8.AppendRune(out, r)
		}
	}
	if newline {
		out = append(out, '\n')
	}
	w.out = out
}

func (w *Writer) flushOut() {
	if len(w.out) == 0 {
		return
	}
	if w.err == nil {
		_, w.err = w.dst.Write(w.out)
	}
	w.out = w.out[:0]
}
