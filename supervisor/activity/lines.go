package activity

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/hangdog/hangdog/internal/termtext"
)

const (
	tailLines        = 20
	repetitionWindow = 50
	maxLineRunes     = 200
)

// analyze fills the text fields of st from the kept raw output: the last
// lines it needs (the repetition window, the tail and the new lines) are
// turned into plain text and examined.
func analyze(st *Stats, raw []byte, whole bool, newLines int) {
	raw = raw[suffixStart(raw, max(repetitionWindow, tailLines, newLines), whole):]
	lines := strings.Split(termtext.Plain(raw), "\n")
	complete, last := lines[:len(lines)-1], lines[len(lines)-1]

	st.LastLine = keepEnd(last)
	tail := complete[max(len(complete)-tailLines, 0):]
	if len(tail) > 0 {
		st.Tail = make([]string, len(tail))
		for i, l := range tail {
			st.Tail[i] = keepStart(l)
		}
	}
	fresh := complete[len(complete)-min(newLines, len(complete)):]
	st.NewDistinctLines = len(maskedCounts(fresh))
	st.Repetition = repetition(complete[max(len(complete)-repetitionWindow, 0):])
	st.Redrawing = movesCursorUp(raw)
}

// suffixStart returns where the last `need` complete lines (and the
// unfinished one after them) begin in raw. Unless raw is the whole output,
// its first line is a fragment and is skipped; a window without any newline
// starts at its first carriage return, where a redraw of the line began.
func suffixStart(raw []byte, need int, whole bool) int {
	pos := len(raw)
	for found := 0; found <= need; found++ {
		nl := bytes.LastIndexByte(raw[:pos], '\n')
		if nl < 0 {
			switch {
			case whole:
				return 0
			case found > 0:
				return pos + 1
			}
			if cr := bytes.IndexByte(raw, '\r'); cr >= 0 {
				return cr
			}
			return runeStart(raw)
		}
		pos = nl
	}
	return pos + 1
}

// runeStart skips UTF-8 continuation bytes cut off from their character.
func runeStart(b []byte) int {
	i := 0
	for i < len(b) && i < utf8.UTFMax && !utf8.RuneStart(b[i]) {
		i++
	}
	return i
}

// keepStart cuts a line to maxLineRunes characters, keeping its beginning.
func keepStart(s string) string {
	if utf8.RuneCountInString(s) <= maxLineRunes {
		return s
	}
	n := 0
	for i := range s {
		if n == maxLineRunes-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// keepEnd cuts a line to maxLineRunes characters, keeping its end.
func keepEnd(s string) string {
	count := utf8.RuneCountInString(s)
	if count <= maxLineRunes {
		return s
	}
	skip := count - (maxLineRunes - 1)
	n := 0
	for i := range s {
		if n == skip {
			return "…" + s[i:]
		}
		n++
	}
	return s
}

// maskedCounts counts the masked forms of the non-blank lines.
func maskedCounts(lines []string) map[string]int {
	counts := make(map[string]int, len(lines))
	for _, l := range lines {
		if m := Mask(l); m != "" {
			counts[m]++
		}
	}
	return counts
}

// repetition is the share of non-blank lines whose masked form occurs more
// than once among them.
func repetition(lines []string) float64 {
	counts := maskedCounts(lines)
	total, repeated := 0, 0
	for _, n := range counts {
		total += n
		if n > 1 {
			repeated += n
		}
	}
	if total < 2 {
		return 0
	}
	return float64(repeated) / float64(total)
}

// movesCursorUp reports whether raw holds a cursor-up (CSI n A) or
// previous-line (CSI n F) sequence.
func movesCursorUp(raw []byte) bool {
	for {
		i := bytes.Index(raw, []byte("\x1b["))
		if i < 0 {
			return false
		}
		raw = raw[i+2:]
		j := 0
		for j < len(raw) && (raw[j] >= '0' && raw[j] <= '9' || raw[j] == ';') {
			j++
		}
		if j < len(raw) && (raw[j] == 'A' || raw[j] == 'F') {
			return true
		}
	}
}
