package screen

import (
	"os"
	"strconv"

	"github.com/clipperhouse/displaywidth"

	"github.com/hangdog/hangdog/internal/termtext"
)

// cell is one terminal column of a line. A wide character takes two cells:
// the character (width 2) and a continuation (width 0) that holds nothing.
type cell struct {
	r     rune
	style uint16
	width uint8
}

// line is one logical line: what a program wrote between two newlines.
type line struct {
	cells []cell
	// marks holds combining characters (zero width) by the column of the
	// cell they modify; nil for nearly every line.
	marks map[int]string
	// joined says the line holds characters terminals draw at different
	// widths (emoji modifiers, joiners, flags, variation selectors); it is
	// wrapped one column short so that none of them wraps it.
	joined bool
}

// Limits that keep memory bounded whatever a command prints.
const (
	// DefaultLines is how many logical lines of history a Screen keeps.
	DefaultLines = 10000
	// maxLineCells breaks a line that never ends (`yes | tr -d '\n'`) into
	// logical lines of this many columns.
	maxLineCells = 16384
	// maxCells bounds the cells held by all lines together; the oldest lines
	// go first when it is exceeded.
	maxCells = 4 << 20
	// keepCap is the largest cell capacity a recycled line keeps.
	keepCap = 1024
)

// Screen is a scrollback of terminal lines fed by Write and drawn by Render.
// It is not safe for concurrent use.
type Screen struct {
	ring  []line
	first int   // ring index of the oldest line
	count int   // lines in use, at least 1
	base  int64 // absolute number of the oldest line

	cy  int64 // cursor line, absolute
	col int   // cursor column

	cur    uint16 // current style index
	styles []style
	byKey  map[style]uint16

	cells int // cells held by all lines

	// floor is the absolute line a clear-screen left the cursor on; cursor
	// positioning counts rows from it. cleared says one happened.
	floor   int64
	cleared bool

	savedY   int64
	savedCol int

	tok termtext.Tokenizer

	width displaywidth.Options

	fs *frameState // set only while Frame plays a stream
}

// New returns an empty screen that keeps at most maxLines logical lines
// (DefaultLines when maxLines < 2).
func New(maxLines int) *Screen {
	if maxLines < 2 {
		maxLines = DefaultLines
	}
	s := &Screen{
		ring:   make([]line, maxLines),
		count:  1,
		styles: []style{{}},
		byKey:  map[style]uint16{{}: 0},
	}
	if ea, err := strconv.ParseBool(os.Getenv("RUNEWIDTH_EASTASIAN")); err == nil && ea {
		s.width.EastAsianWidth = true
	}
	return s
}

func (s *Screen) last() int64 { return s.base + int64(s.count) - 1 }

func (s *Screen) at(abs int64) *line {
	i := s.first + int(abs-s.base)
	if i >= len(s.ring) {
		i -= len(s.ring)
	}
	return &s.ring[i]
}

// appendLine adds an empty line at the bottom, dropping the oldest when full.
func (s *Screen) appendLine() {
	if s.count == len(s.ring) {
		s.dropOldest()
	}
	i := s.first + s.count
	if i >= len(s.ring) {
		i -= len(s.ring)
	}
	ln := &s.ring[i]
	ln.cells = ln.cells[:0]
	ln.marks, ln.joined = nil, false
	s.count++
}

func (s *Screen) dropOldest() {
	ln := &s.ring[s.first]
	s.cells -= len(ln.cells)
	if cap(ln.cells) > keepCap {
		ln.cells = nil
	} else {
		ln.cells = ln.cells[:0]
	}
	ln.marks, ln.joined = nil, false
	s.first++
	if s.first == len(s.ring) {
		s.first = 0
	}
	s.base++
	s.count--
	if s.cy < s.base {
		s.cy, s.col = s.base, 0
	}
}

// trimToBudget drops the oldest lines while all lines hold too many cells.
func (s *Screen) trimToBudget() {
	for s.cells > maxCells && s.count > 1 {
		s.dropOldest()
	}
}

// newline moves the cursor to the start of the next line, adding one at the
// bottom.
func (s *Screen) newline() {
	if s.cy == s.last() {
		s.appendLine()
	}
	s.cy++
	s.col = 0
}

// lineFeed is a newline that keeps the column (ESC D, VT, FF).
func (s *Screen) lineFeed() {
	col := s.col
	s.newline()
	s.col = col
}

func (s *Screen) styleIndex(st style) uint16 {
	if i, ok := s.byKey[st]; ok {
		return i
	}
	if len(s.styles) >= maxStyles {
		return 0
	}
	i := uint16(len(s.styles))
	s.styles = append(s.styles, st)
	s.byKey[st] = i
	return i
}

// put writes one character of width w (1 or 2) at the cursor.
func (s *Screen) put(r rune, w int) {
	if s.col+w > maxLineCells {
		s.newline()
	}
	ln := s.at(s.cy)
	s.padTo(ln, s.col)
	if s.col < len(ln.cells) {
		s.clearCell(ln, s.col)
		if w == 2 && s.col+1 < len(ln.cells) {
			s.clearCell(ln, s.col+1)
		}
	}
	s.setCell(ln, s.col, cell{r: r, style: s.cur, width: uint8(w)})
	if w == 2 {
		s.setCell(ln, s.col+1, cell{style: s.cur})
	}
	s.col += w
}

// putASCII writes a run of printable ASCII at the cursor: the hot path for
// most output.
func (s *Screen) putASCII(run []byte) {
	for len(run) > 0 {
		if s.col >= maxLineCells {
			s.newline()
		}
		ln := s.at(s.cy)
		s.padTo(ln, s.col)
		n := min(len(run), maxLineCells-s.col)
		if s.col == len(ln.cells) && ln.marks == nil {
			for _, b := range run[:n] {
				ln.cells = append(ln.cells, cell{r: rune(b), style: s.cur, width: 1})
			}
			s.cells += n
		} else {
			for i, b := range run[:n] {
				if s.col+i < len(ln.cells) {
					s.clearCell(ln, s.col+i)
				}
				s.setCell(ln, s.col+i, cell{r: rune(b), style: s.cur, width: 1})
			}
		}
		s.col += n
		run = run[n:]
	}
	if s.cells > maxCells {
		s.trimToBudget()
	}
}

// mark attaches a zero-width character to the cell before the cursor.
func (s *Screen) mark(r rune) {
	ln := s.at(s.cy)
	c := s.col - 1
	for c > 0 && c < len(ln.cells) && ln.cells[c].width == 0 {
		c--
	}
	if c < 0 || c >= len(ln.cells) {
		return
	}
	if ln.marks == nil {
		ln.marks = map[int]string{}
	}
	if len(ln.marks[c]) < 32 {
		ln.marks[c] += string(r)
	}
	if Joiner(r) {
		ln.joined = true
	}
	// VS16 asks for emoji presentation, which grapheme-aware terminals draw
	// two columns wide: give the character its second cell, so a row never
	// holds more than the terminal has.
	if r == 0xfe0f && ln.cells[c].width == 1 && c == s.col-1 && s.col < maxLineCells {
		if s.col < len(ln.cells) {
			s.clearCell(ln, s.col)
		}
		ln.cells[c].width = 2
		s.setCell(ln, s.col, cell{style: ln.cells[c].style})
		s.col++
	}
}

// Joiner is a character that makes terminals disagree about the width of
// the grapheme cluster it is in: zero-width joiner, variation selectors,
// skin-tone modifiers and regional indicators (flags).
func Joiner(r rune) bool {
	switch {
	case r == 0x200d, r == 0xfe0e, r == 0xfe0f:
		return true
	case r >= 0x1f3fb && r <= 0x1f3ff:
		return true
	case r >= 0x1f1e6 && r <= 0x1f1ff:
		return true
	}
	return false
}

// setCell stores c at column i, growing the line by one if i is its end.
func (s *Screen) setCell(ln *line, i int, c cell) {
	if i == len(ln.cells) {
		ln.cells = append(ln.cells, c)
		s.cells++
		return
	}
	ln.cells[i] = c
}

// clearCell blanks the cell at i and, if it is half of a wide character, the
// other half, so no half-character is ever drawn.
func (s *Screen) clearCell(ln *line, i int) {
	c := ln.cells[i]
	switch {
	case c.width == 2 && i+1 < len(ln.cells):
		ln.cells[i+1] = cell{r: ' ', style: ln.cells[i+1].style, width: 1}
	case c.width == 0 && i > 0:
		ln.cells[i-1] = cell{r: ' ', style: ln.cells[i-1].style, width: 1}
	}
	if ln.marks != nil {
		delete(ln.marks, i)
	}
	ln.cells[i] = cell{r: ' ', style: c.style, width: 1}
}

// padTo fills a line with blanks up to column col, as a terminal shows the
// gap a cursor movement leaves.
func (s *Screen) padTo(ln *line, col int) {
	for len(ln.cells) < col {
		ln.cells = append(ln.cells, cell{r: ' ', width: 1})
		s.cells++
	}
}

// truncate cuts a line at column col.
func (s *Screen) truncate(ln *line, col int) {
	if col >= len(ln.cells) {
		return
	}
	if col > 0 && ln.cells[col].width == 0 {
		col-- // never keep half of a wide character
	}
	s.cells -= len(ln.cells) - col
	ln.cells = ln.cells[:col]
	for k := range ln.marks {
		if k >= col {
			delete(ln.marks, k)
		}
	}
}

// eraseLine implements EL: 0 cursor to end, 1 start to cursor, 2 whole line.
func (s *Screen) eraseLine(mode int) {
	ln := s.at(s.cy)
	switch mode {
	case 0:
		s.truncate(ln, s.col)
	case 1:
		for i := 0; i <= s.col && i < len(ln.cells); i++ {
			s.clearCell(ln, i)
		}
	case 2:
		s.truncate(ln, 0)
	}
}

// eraseBelow implements ED 0: the rest of the cursor line and every line
// below it, which multi-line progress displays use to redraw.
func (s *Screen) eraseBelow() {
	s.eraseLine(0)
	for s.last() > s.cy {
		ln := s.at(s.last())
		s.cells -= len(ln.cells)
		ln.cells = ln.cells[:0]
		ln.marks = nil
		s.count--
	}
}

// clear implements a clear-screen: the page starts afresh below what was
// shown, and the history stays reachable by scrolling.
func (s *Screen) clear() {
	s.cy = s.last()
	if len(s.at(s.cy).cells) > 0 {
		s.newline()
	}
	s.col = 0
	s.floor = s.cy
	s.cleared = true
}

// eraseChars implements ECH: blank n cells from the cursor.
func (s *Screen) eraseChars(n int) {
	ln := s.at(s.cy)
	for i := s.col; i < s.col+n && i < len(ln.cells); i++ {
		s.clearCell(ln, i)
	}
}

// deleteChars implements DCH: remove n cells at the cursor, pulling the rest left.
func (s *Screen) deleteChars(n int) {
	ln := s.at(s.cy)
	if s.col >= len(ln.cells) {
		return
	}
	end := min(s.col+n, len(ln.cells))
	if end < len(ln.cells) && ln.cells[end].width == 0 {
		s.clearCell(ln, end)
	}
	if ln.cells[s.col].width == 0 {
		s.clearCell(ln, s.col)
	}
	ln.cells = append(ln.cells[:s.col], ln.cells[end:]...)
	s.cells -= end - s.col
	ln.marks = nil
}

// insertBlanks implements ICH: push the rest of the line right by n blanks.
func (s *Screen) insertBlanks(n int) {
	ln := s.at(s.cy)
	if s.col >= len(ln.cells) {
		return
	}
	n = min(n, maxLineCells-len(ln.cells))
	if n <= 0 {
		return
	}
	if ln.cells[s.col].width == 0 {
		s.clearCell(ln, s.col)
	}
	blanks := make([]cell, n)
	for i := range blanks {
		blanks[i] = cell{r: ' ', width: 1}
	}
	ln.cells = append(ln.cells[:s.col], append(blanks, ln.cells[s.col:]...)...)
	s.cells += n
	ln.marks = nil
}

// moveLines moves the cursor n lines down (negative: up) within the lines
// that exist; like a terminal, it never scrolls.
func (s *Screen) moveLines(n int) {
	y := s.cy + int64(n)
	lo := s.base
	if s.cleared && s.floor > lo {
		lo = s.floor
	}
	y = max(lo, min(y, s.last()))
	s.cy = y
}

// moveTo positions the cursor at a row of the page (1-based, counted from
// the last clear-screen) and a column, adding lines below as needed.
func (s *Screen) moveTo(row, col int) {
	if !s.cleared {
		// Without a page to count rows from, only the column is meaningful.
		s.col = max(0, min(col-1, maxLineCells-1))
		return
	}
	s.addressed(row)
	target := max(s.floor, s.base) + int64(max(row, 1)-1)
	if target-s.last() > int64(len(s.ring)) {
		target = s.last() + int64(len(s.ring))
	}
	for s.last() < target {
		s.appendLine()
	}
	s.cy = target
	s.col = max(0, min(col-1, maxLineCells-1))
}

// FreshLine ends the cursor line if anything is on it, moves to the bottom
// and resets the style, so the next write starts a clean line of its own.
func (s *Screen) FreshLine() {
	s.cy = s.last()
	if len(s.at(s.cy).cells) > 0 {
		s.newline()
	}
	s.col = 0
	s.cur = 0
	s.tok.Reset()
}

// Reset forgets every line and all parser state.
func (s *Screen) Reset() {
	for s.count > 1 {
		s.dropOldest()
	}
	ln := s.at(s.base)
	ln.cells, ln.marks, ln.joined = ln.cells[:0], nil, false
	s.cells = 0
	s.cy, s.col, s.cur = s.base, 0, 0
	s.cleared = false
	s.tok.Reset()
}
