package screen

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// FullScreenError is returned by Write when a full-screen program (pager,
// editor, top) takes over the terminal: the output switches to the
// alternate screen, or to application cursor keys (what curses programs
// such as top send when they start, alternate screen or not). Write has
// consumed the bytes up to and including the switch; the rest of the buffer,
// preceded by Seq, belongs to the program's own display.
type FullScreenError struct {
	Seq []byte // the switching sequence, e.g. "\x1b[?1049h"
	// AltScreen is true for a switch to the alternate screen, which only
	// leaving it ends; false for application cursor keys, which resetting
	// them (or leaving an alternate screen) ends.
	AltScreen bool
}

func (e *FullScreenError) Error() string {
	return fmt.Sprintf("a full-screen program took the terminal (%q)", e.Seq)
}

type parseState uint8

const (
	stGround parseState = iota
	stEscape
	stEscInter // ESC followed by intermediates: one more final byte
	stCSI
	stString    // OSC, DCS, APC, PM, SOS: skipped to its terminator
	stStringEsc // ESC inside a string: '\' ends it
)

// maxParams bounds a CSI's parameter bytes; longer sequences are consumed
// and ignored.
const maxParams = 64

type parser struct {
	state    parseState
	private  byte // '?', '>', '<' or '=' when the CSI started with one
	inter    byte // last intermediate byte of a CSI
	params   [maxParams]byte
	nparams  int
	overflow bool
	utf8     [utf8.UTFMax]byte
	nutf8    int
}

func (p *parser) reset() { *p = parser{} }

// Write parses terminal output into the screen. It always consumes all of b
// unless the output switches to the alternate screen, when it returns the
// count consumed and a *FullScreenError.
func (s *Screen) Write(b []byte) (int, error) {
	done := 0
	if k := s.skipFlood(b); k > 0 {
		done = k
	}
	for i := done; i < len(b); {
		if s.p.state == stGround && s.p.nutf8 == 0 {
			// Fast path: runs of printable ASCII and line ends.
			j := i
			for j < len(b) && b[j] >= 0x20 && b[j] < 0x7f {
				j++
			}
			if j > i {
				s.putASCII(b[i:j])
				i = j
				continue
			}
			switch b[i] {
			case '\r':
				s.col = 0
				i++
				continue
			case '\n':
				s.newline()
				i++
				continue
			}
		}
		c := b[i]
		i++
		if err := s.feed(c); err != nil {
			return i, err
		}
	}
	return len(b), nil
}

// skipFlood makes a flood cheap: when b alone holds more newlines than the
// screen keeps lines, everything before the last len(ring)-1 of them would
// scroll out unseen, so it is counted instead of parsed. Only plain text
// (no ESC) in the ground state is skipped, so no style or mode is missed.
// It returns how many bytes it skipped.
func (s *Screen) skipFlood(b []byte) int {
	if s.p.state != stGround || len(b) < len(s.ring) {
		return 0
	}
	n := bytes.Count(b, []byte{'\n'})
	if n < len(s.ring) || bytes.IndexByte(b, 0x1b) >= 0 {
		return 0
	}
	drop := n - (len(s.ring) - 1) // newlines to skip
	// Keep the part after the newline that has len(ring)-1 newlines after
	// it; searching from the end costs len(ring) steps however big b is.
	end := len(b)
	for k := 0; k < len(s.ring); k++ {
		end = bytes.LastIndexByte(b[:end], '\n')
	}
	cut := end + 1
	// Every line held now and every line the skipped part starts is gone:
	// begin again on an empty line with the absolute numbering moved on.
	newBase := s.base + int64(s.count) - 1 + int64(drop)
	for s.count > 1 {
		s.dropOldest()
	}
	ln := s.at(s.base)
	s.cells -= len(ln.cells)
	ln.cells, ln.marks = ln.cells[:0], nil
	s.base = newBase
	s.cy, s.col = newBase, 0
	if s.floor < newBase {
		s.cleared = false
	}
	s.p.nutf8 = 0
	return cut
}

// feed handles one byte outside the ASCII fast path.
func (s *Screen) feed(c byte) error {
	p := &s.p
	switch p.state {
	case stGround:
		switch {
		case c == 0x1b:
			p.flushUTF8(s)
			p.state = stEscape
		case c < 0x20 || c == 0x7f:
			p.flushUTF8(s)
			s.control(c)
		case c < 0x80:
			p.flushUTF8(s)
			s.putASCII([]byte{c})
		default:
			p.utf8Byte(s, c)
		}
	case stEscape:
		return s.escape(c)
	case stEscInter:
		switch {
		case c >= 0x20 && c <= 0x2f:
		case c == 0x1b:
			p.state = stEscape
		default:
			p.state = stGround
		}
	case stCSI:
		return s.csiByte(c)
	case stString:
		switch c {
		case 0x07: // BEL ends an OSC
			p.state = stGround
		case 0x1b:
			p.state = stStringEsc
		case 0x18, 0x1a:
			p.state = stGround
		}
	case stStringEsc:
		if c == '\\' {
			p.state = stGround
		} else if c != 0x1b {
			p.state = stString
		}
	}
	return nil
}

// utf8Byte collects the bytes of one multi-byte character.
func (p *parser) utf8Byte(s *Screen, c byte) {
	if p.nutf8 > 0 && (c&0xc0 != 0x80) {
		p.flushUTF8(s) // an unfinished character, then a new one
	}
	if p.nutf8 == 0 && c&0xc0 == 0x80 {
		s.putRune(utf8.RuneError)
		return
	}
	p.utf8[p.nutf8] = c
	p.nutf8++
	if utf8.FullRune(p.utf8[:p.nutf8]) || p.nutf8 == utf8.UTFMax {
		r, size := utf8.DecodeRune(p.utf8[:p.nutf8])
		s.putRune(r)
		if size < p.nutf8 {
			// The lead byte was invalid: it became U+FFFD; re-feed the rest.
			rest := append([]byte(nil), p.utf8[size:p.nutf8]...)
			p.nutf8 = 0
			for _, b := range rest {
				p.utf8Byte(s, b)
			}
			return
		}
		p.nutf8 = 0
	}
}

// flushUTF8 ends an unfinished multi-byte character as U+FFFD.
func (p *parser) flushUTF8(s *Screen) {
	if p.nutf8 > 0 {
		p.nutf8 = 0
		s.putRune(utf8.RuneError)
	}
}

func (s *Screen) putRune(r rune) {
	if r >= 0x80 && r < 0xa0 {
		return // C1 controls are never shown
	}
	w := s.width.Rune(r)
	if w > 0 && Joiner(r) {
		s.at(s.cy).joined = true
	}
	switch {
	case w <= 0:
		s.mark(r)
	case w >= 2:
		s.put(r, 2)
	default:
		s.put(r, 1)
	}
	if s.cells > maxCells {
		s.trimToBudget()
	}
}

func (s *Screen) control(c byte) {
	switch c {
	case '\n':
		s.newline()
	case '\v', '\f':
		s.lineFeed()
	case '\r':
		s.col = 0
	case '\b':
		if s.col > 0 {
			s.col--
		}
	case '\t':
		next := min((s.col/8+1)*8, maxLineCells-1)
		ln := s.at(s.cy)
		if next > len(ln.cells) {
			s.padTo(ln, next)
		}
		s.col = next
	}
}

func (s *Screen) escape(c byte) error {
	p := &s.p
	p.state = stGround
	switch c {
	case '[':
		p.state = stCSI
		p.private, p.inter, p.nparams, p.overflow = 0, 0, 0, false
	case ']', 'P', '_', '^', 'X':
		p.state = stString
	case 0x1b:
		p.state = stEscape
	case '7':
		s.savedY, s.savedCol = s.cy, s.col
	case '8':
		if s.savedY >= s.base && s.savedY <= s.last() {
			s.cy, s.col = s.savedY, s.savedCol
		}
	case 'D':
		s.lineFeed()
	case 'E':
		s.newline()
	case 'M':
		s.moveLines(-1)
	case 'c':
		s.cur = 0
		s.clear()
	default:
		if c >= 0x20 && c <= 0x2f {
			p.state = stEscInter
		}
	}
	return nil
}

func (s *Screen) csiByte(c byte) error {
	p := &s.p
	switch {
	case c >= 0x30 && c <= 0x3f:
		if p.nparams == 0 && c >= 0x3c && !p.overflow && p.private == 0 {
			p.private = c
			return nil
		}
		if p.nparams == maxParams {
			p.overflow = true
			return nil
		}
		p.params[p.nparams] = c
		p.nparams++
	case c >= 0x20 && c <= 0x2f:
		p.inter = c
	case c >= 0x40 && c <= 0x7e:
		p.state = stGround
		if !p.overflow {
			return s.dispatchCSI(c)
		}
	case c == 0x1b:
		p.state = stEscape
	case c == 0x18 || c == 0x1a:
		p.state = stGround
	case c < 0x20:
		s.control(c) // C0 controls act even inside a sequence
	}
	return nil
}

func (s *Screen) dispatchCSI(final byte) error {
	p := &s.p
	params := p.params[:p.nparams]
	if p.private != 0 {
		if p.private == '?' && p.inter == 0 && final == 'h' {
			if alt, keys := fullScreenModes(params); alt || keys {
				seq := append([]byte("\x1b[?"), params...)
				return &FullScreenError{Seq: append(seq, 'h'), AltScreen: alt}
			}
		}
		if p.private == '?' && p.inter == 0 && final == 'l' {
			if alt, _ := fullScreenModes(params); alt {
				s.leftFullScreen()
			}
		}
		return nil
	}
	if p.inter != 0 {
		return nil
	}
	n := func(def int) int {
		v := firstParam(params)
		if v <= 0 {
			return def
		}
		return v
	}
	switch final {
	case 'm':
		s.cur = s.styleIndex(applySGR(s.styles[s.cur], params))
	case 'K':
		s.eraseLine(firstParam(params))
	case 'J':
		switch firstParam(params) {
		case 0:
			s.eraseBelow()
		case 2, 3:
			s.clear()
		}
	case 'C', 'a':
		s.col = min(s.col+n(1), maxLineCells-1)
	case 'D':
		s.col = max(s.col-n(1), 0)
	case 'G', '`':
		s.col = max(0, min(n(1)-1, maxLineCells-1))
	case 'A':
		s.moveLines(-n(1))
	case 'B', 'e':
		s.moveLines(n(1))
	case 'E':
		s.moveLines(n(1))
		s.col = 0
	case 'F':
		s.moveLines(-n(1))
		s.col = 0
	case 'H', 'f':
		groups := parseGroups(params)
		row, col := 1, 1
		if len(groups) > 0 && groups[0][0] > 0 {
			row = groups[0][0]
		}
		if len(groups) > 1 && groups[1][0] > 0 {
			col = groups[1][0]
		}
		s.moveTo(row, col)
	case 'X':
		s.eraseChars(n(1))
	case 'P':
		s.deleteChars(n(1))
	case '@':
		s.insertBlanks(n(1))
	}
	return nil
}

// fullScreenModes reports whether private mode parameters switch to the
// alternate screen (1049, 1047 or 47) or to application cursor keys (1).
func fullScreenModes(params []byte) (alt, keys bool) {
	for _, f := range bytes.Split(params, []byte{';'}) {
		switch string(f) {
		case "1049", "1047", "47":
			alt = true
		case "1":
			keys = true
		}
	}
	return alt, keys
}

// firstParam is the first CSI parameter, 0 when absent.
func firstParam(params []byte) int {
	n := 0
	for _, b := range params {
		if b < '0' || b > '9' {
			break
		}
		if n < 1<<20 {
			n = n*10 + int(b-'0')
		}
	}
	return n
}
