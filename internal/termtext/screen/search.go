package screen

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Match is where a search found its text: a logical line, absolute like the
// screen's own numbering, and the cells [From, To) it covers.
type Match struct {
	Line     int64
	From, To int
}

// Search looks for query in the history, one logical line at a time, from
// the line before (backward) or after (forward) the one at `from`, wrapping
// around. A query without capitals ignores case, as in less and vim's
// smartcase. from < 0 starts at the bottom, looking backward. It returns
// how many lines match in all, for "3 of 17".
func (s *Screen) Search(query string, from Match, backward bool) (m Match, found bool, total int) {
	if query == "" {
		return Match{}, false, 0
	}
	fold := strings.ToLower(query) == query
	q := []rune(query)
	n := int64(s.count)
	buf := make([]rune, 0, 256)
	var first, after, before Match
	var haveFirst, haveAfter, haveBefore bool
	for abs := s.base; abs < s.base+n; abs++ {
		ln := s.at(abs)
		from0, to0, ok := findInLine(ln, q, fold, &buf)
		if !ok {
			continue
		}
		total++
		mt := Match{Line: abs, From: from0, To: to0}
		if !haveFirst {
			first, haveFirst = mt, true
		}
		if from.Line >= s.base && abs < from.Line {
			before, haveBefore = mt, true // the last one before from
		}
		if from.Line >= s.base && abs > from.Line && !haveAfter {
			after, haveAfter = mt, true
		}
		m = mt // the last one, for a search from the bottom
	}
	if total == 0 {
		return Match{}, false, 0
	}
	switch {
	case from.Line < s.base && backward:
		return m, true, total
	case from.Line < s.base:
		return first, true, total
	case backward && haveBefore:
		return before, true, total
	case backward:
		return m, true, total // wrap to the newest
	case haveAfter:
		return after, true, total
	}
	return first, true, total // wrap to the oldest
}

// findInLine finds q in the line's characters, returning the cells it covers.
func findInLine(ln *line, q []rune, fold bool, buf *[]rune) (from, to int, ok bool) {
	if len(ln.cells) < len(q) {
		return 0, 0, false
	}
	// runes holds one entry per cell; a wide character's continuation is 0.
	runes := (*buf)[:0]
	for _, c := range ln.cells {
		r := c.r
		if fold && r >= utf8.RuneSelf {
			r = unicode.ToLower(r)
		} else if fold && 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		runes = append(runes, r)
	}
	*buf = runes
	for i := 0; i+len(q) <= len(runes); i++ {
		if runes[i] != q[0] {
			continue
		}
		j, k := i, 0
		for j < len(runes) && k < len(q) {
			if runes[j] == 0 && ln.cells[j].width == 0 {
				j++ // the second half of a wide character
				continue
			}
			if runes[j] != q[k] {
				break
			}
			j++
			k++
		}
		if k == len(q) {
			for j < len(runes) && ln.cells[j].width == 0 {
				j++
			}
			return i, j, true
		}
	}
	return 0, 0, false
}

// ScrollFor returns the Scroll that shows line abs in a view of width ×
// height, about a third of the way up from the bottom.
func (s *Screen) ScrollFor(abs int64, width, height int) int {
	if width < 1 || height < 1 || abs < s.base {
		return 0
	}
	lastAbs := s.last()
	if lastAbs > s.base && len(s.at(lastAbs).cells) == 0 {
		lastAbs--
	}
	below := 0
	var spans [][2]int
	for a := lastAbs; a > abs; a-- {
		ln := s.at(a)
		spans = wrap(ln.cells, rowWidth(ln, width), spans[:0])
		below += len(spans)
	}
	return max(0, below-height/3)
}

// rowWidth is the width a line is wrapped at: one column short for a line
// terminals may draw wider than its cells.
func rowWidth(ln *line, width int) int {
	if ln.joined && width > 2 {
		return width - 1
	}
	return width
}
