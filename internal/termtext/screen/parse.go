package screen

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/hangdog/hangdog/internal/termtext"
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

// Write parses terminal output into the screen. It always consumes all of b
// unless the output switches to the alternate screen, when it returns the
// count consumed and a *FullScreenError.
func (s *Screen) Write(b []byte) (int, error) {
	done := 0
	if k := s.skipFlood(b); k > 0 {
		done = k
	}
	for i := done; i < len(b); {
		if s.tok.Between() {
			// Line ends without a call: a flood is mostly short lines.
			switch b[i] {
			case '\n':
				s.newline()
				i++
				continue
			case '\r':
				s.col = 0
				i++
				continue
			}
		}
		kind, n := s.tok.Next(b[i:])
		i += n
		tok := s.tok.Token()
		switch kind {
		case termtext.KindText:
			s.putASCII(tok.Text)
		case termtext.KindRune:
			s.putRune(tok.Rune)
		case termtext.KindInvalid:
			// One U+FFFD for a broken character, however many bytes.
			s.putRune(utf8.RuneError)
		case termtext.KindControl:
			s.control(tok.Final)
		case termtext.KindEsc:
			if tok.Inter == 0 {
				s.escape(tok.Final)
			}
		case termtext.KindCSI:
			if err := s.dispatchCSI(tok); err != nil {
				return i, err
			}
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
	if !s.tok.Ground() || len(b) < len(s.ring) {
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
	s.tok.Reset()
	return cut
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

// escape acts on the ESC sequences programs use to move the cursor.
func (s *Screen) escape(c byte) {
	switch c {
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
	}
}

func (s *Screen) dispatchCSI(tok *termtext.Token) error {
	params, final := tok.Params, tok.Final
	if tok.Private != 0 {
		if tok.Private == '?' && tok.Inter == 0 && final == 'h' {
			if alt, keys := fullScreenModes(params); alt || keys {
				seq := append([]byte("\x1b[?"), params...)
				return &FullScreenError{Seq: append(seq, 'h'), AltScreen: alt}
			}
		}
		if tok.Private == '?' && tok.Inter == 0 && final == 'l' {
			if alt, _ := fullScreenModes(params); alt {
				s.leftFullScreen()
			}
		}
		return nil
	}
	if tok.Inter != 0 {
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
