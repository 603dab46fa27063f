package termtext

import (
	"strings"
	"unicode/utf8"
)

// LastLines keeps the last n lines of text; a final newline does not start an
// extra, empty line, and the result has no trailing newline.
func LastLines(text string, n int) string {
	if n <= 0 {
		return ""
	}
	text = strings.TrimRight(text, "\n")
	cut := len(text)
	for range n {
		i := strings.LastIndexByte(text[:cut], '\n')
		if i < 0 {
			return text
		}
		cut = i
	}
	return text[cut+1:]
}

// Clip shortens s to at most n bytes on a rune boundary, marking the cut
// with an ellipsis.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := max(n-len("…"), 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
