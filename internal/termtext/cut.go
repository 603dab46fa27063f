package termtext

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// What fits of raw terminal output in a budget of plain text, cut at line
// boundaries: the start (Head) or the end (Tail) of a stream. A front end
// shows a long output as a head, a note of what it left out, and a tail.

// Head converts whole lines from the start of raw to plain text while they
// fit in budget and returns the text and the raw offset it reached. A first
// line longer than the budget is cut inside, so something is shown.
func Head(raw []byte, budget int) (string, int) {
	var sb strings.Builder
	end := 0
	for end < len(raw) {
		n := bytes.IndexByte(raw[end:], '\n')
		if n < 0 {
			n = len(raw) - end
		} else {
			n++
		}
		line := Plain(raw[end : end+n])
		if sb.Len()+len(line) > budget {
			if sb.Len() == 0 {
				return cutLine(raw[end:end+n], budget)
			}
			break
		}
		sb.WriteString(line)
		end += n
	}
	return sb.String(), end
}

// Tail is Head from the end: whole lines that fit in budget, and the raw
// offset where they start.
func Tail(raw []byte, budget int) (string, int) {
	var lines []string
	size, start := 0, len(raw)
	for start > 0 {
		// The line ending at start (its own '\n' excluded from the search)
		// begins after the previous newline.
		i := bytes.LastIndexByte(raw[:start-1], '\n') + 1
		line := Plain(raw[i:start])
		if size+len(line) > budget {
			if size == 0 {
				text, from := cutLineEnd(raw[i:start], budget)
				return text, i + from
			}
			break
		}
		lines = append(lines, line)
		size += len(line)
		start = i
	}
	var sb strings.Builder
	sb.Grow(size)
	for i := len(lines) - 1; i >= 0; i-- {
		sb.WriteString(lines[i])
	}
	return sb.String(), start
}

// cutLine shows the start of one over-long line: about budget raw bytes,
// cut at a character boundary.
func cutLine(line []byte, budget int) (string, int) {
	n := min(max(budget, 1), len(line))
	for n > 0 && n < len(line) && !utf8.RuneStart(line[n]) {
		n--
	}
	return Truncate(Plain(line[:n]), budget), n
}

// cutLineEnd shows the end of one over-long line.
func cutLineEnd(line []byte, budget int) (string, int) {
	from := max(len(line)-max(budget, 1), 0)
	for from < len(line) && !utf8.RuneStart(line[from]) {
		from++
	}
	text := Plain(line[from:])
	if len(text) > budget {
		text = text[len(text)-budget:]
		for len(text) > 0 && !utf8.RuneStart(text[0]) {
			text = text[1:]
		}
	}
	return text, from
}

// Truncate cuts s to at most n bytes at a character boundary, with no mark
// (Clip marks its cut). Plain text can be a little longer than the raw
// bytes it came from (an invalid byte becomes U+FFFD), so a budget is
// enforced on the text too.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
