package screen

import "strings"

// RenderOptions say how Render draws.
type RenderOptions struct {
	Width, Height int
	// Scroll is how many rows above the bottom the view starts; Render
	// clamps it to the history it has.
	Scroll int
	// NoColor drops colours but keeps bold, underline, reverse and the rest,
	// for NO_COLOR.
	NoColor bool
	// Find highlights every occurrence of this text in reverse video (case
	// as Search folds it), and Current, the match a search is on, in
	// reverse, bold and underline.
	Find    string
	Current Match
}

// highlight is a span of cells drawn marked, and whether it is the current
// match.
type highlight struct {
	from, to int
	current  bool
}

// highlights finds the spans of a line to mark for o.Find.
func (s *Screen) highlights(ln *line, abs int64, o RenderOptions) []highlight {
	if o.Find == "" {
		return nil
	}
	q := []rune(o.Find)
	fold := strings.ToLower(o.Find) == o.Find
	var hl []highlight
	var buf []rune
	for off := 0; off < len(ln.cells); {
		sub := line{cells: ln.cells[off:]}
		from, to, ok := findInLine(&sub, q, fold, &buf)
		if !ok {
			break
		}
		from, to = from+off, to+off
		hl = append(hl, highlight{from: from, to: to, current: abs == o.Current.Line && from == o.Current.From})
		off = max(to, from+1)
	}
	return hl
}

// Render draws the bottom of the history (or the part Scroll rows above it)
// wrapped to Width, as exactly Height rows, the first rows blank when there is
// less to show. It returns the rows and the scroll it actually used.
func (s *Screen) Render(o RenderOptions) ([]string, int) {
	if o.Width < 1 || o.Height < 1 {
		return nil, 0
	}
	want := o.Height + max(o.Scroll, 0)
	lastAbs := s.last()
	// An empty last line is where the next output goes, not content; a
	// page a clear-screen started still shows its cursor line.
	if lastAbs > s.base && len(s.at(lastAbs).cells) == 0 && !(s.cleared && lastAbs == s.floor) {
		lastAbs--
	}
	stop := s.base
	if o.Scroll <= 0 && s.cleared && s.floor > stop {
		// The live view shows only the page since the last clear-screen.
		stop = s.floor
	}
	// Collect rows bottom-up, one logical line at a time, until enough.
	var rev []string
	var spans [][2]int
	for abs := lastAbs; abs >= stop && len(rev) < want; abs-- {
		ln := s.at(abs)
		// The last column is left unused where terminals disagree.
		spans = wrap(ln.cells, rowWidth(ln, o.Width), spans[:0])
		hl := s.highlights(ln, abs, o)
		for k := len(spans) - 1; k >= 0 && len(rev) < want; k-- {
			rev = append(rev, s.drawRow(ln, spans[k][0], spans[k][1], o.Width, o.NoColor, hl))
		}
	}
	scroll := max(0, min(o.Scroll, len(rev)-o.Height))
	rows := make([]string, o.Height)
	// rev[0] is the bottom row; the view's bottom row is rev[scroll].
	for i := 0; i < o.Height; i++ {
		k := scroll + o.Height - 1 - i
		if k < len(rev) {
			rows[i] = rev[k]
		}
	}
	return rows, scroll
}

// wrap splits a line into rows of at most width columns, never splitting a
// wide character; an empty line is one empty row.
func wrap(cells []cell, width int, spans [][2]int) [][2]int {
	if len(cells) == 0 {
		return append(spans, [2]int{0, 0})
	}
	start := 0
	for start < len(cells) {
		end := min(start+width, len(cells))
		if end < len(cells) && cells[end].width == 0 && end-1 > start {
			end-- // the wide character goes to the next row whole
		}
		spans = append(spans, [2]int{start, end})
		start = end
	}
	return spans
}

// drawRow renders cells [from, to) of a line with the SGR changes they need,
// ending in the default style. A wide character in a view too narrow for it
// is drawn as a blank.
func (s *Screen) drawRow(ln *line, from, to, width int, noColor bool, hl []highlight) string {
	var b strings.Builder
	b.Grow(to - from + 16)
	// key is the cell's style and its highlight (0 none, 1 match, 2
	// current), which change together in the SGR written.
	cur := 0
	h := 0
	for i := from; i < to; i++ {
		c := ln.cells[i]
		if c.width == 0 {
			continue
		}
		mark := 0
		for h < len(hl) && hl[h].to <= i {
			h++
		}
		if h < len(hl) && hl[h].from <= i {
			mark = 1
			if hl[h].current {
				mark = 2
			}
		}
		if key := int(c.style) | mark<<16; key != cur {
			b.WriteString(s.styles[c.style].sgr(!noColor))
			switch mark {
			case 1:
				b.WriteString("\x1b[7m")
			case 2:
				b.WriteString("\x1b[1;4;7m")
			}
			cur = key
		}
		if int(c.width) > width {
			b.WriteByte(' ')
			continue
		}
		b.WriteRune(c.r)
		if ln.marks != nil {
			b.WriteString(ln.marks[i])
		}
	}
	if cur != 0 {
		b.WriteString("\x1b[0m")
	}
	return b.String()
}

// Text returns the whole history as plain text, one line per logical line,
// for tests and for copying.
func (s *Screen) Text() string {
	var b strings.Builder
	for abs := s.base; abs <= s.last(); abs++ {
		ln := s.at(abs)
		for i, c := range ln.cells {
			if c.width == 0 {
				continue
			}
			b.WriteRune(c.r)
			if ln.marks != nil {
				b.WriteString(ln.marks[i])
			}
		}
		if abs < s.last() {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// Lines is how many logical lines the screen holds, and how many it has
// dropped from the top since it was made.
func (s *Screen) Lines() (held int, dropped int64) { return s.count, s.base }
