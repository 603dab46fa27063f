package termtext

import (
	"fmt"
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

// CapMiddle shortens s to at most limit bytes (so at most limit
// characters), keeping a quarter from the head and the rest from the end —
// where a command's latest output is — with a note of how much was left
// out between them, so a reader (a model) knows the text is not whole.
func CapMiddle(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	head := limit / 4
	note := fmt.Sprintf("\n[… %d characters left out …]\n", len(s))
	tailLen := limit - head - len(note)
	head = runeFloor(s, head)
	tailStart := runeCeil(s, len(s)-tailLen)
	return s[:head] + fmt.Sprintf("\n[… %d characters left out …]\n", tailStart-head) + s[tailStart:]
}

// runeFloor moves i back to the start of the rune it falls in.
func runeFloor(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// runeCeil moves i forward to the start of the next rune.
func runeCeil(s string, i int) int {
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return i
}
