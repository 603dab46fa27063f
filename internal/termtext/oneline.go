package termtext

import (
	"strings"
	"unicode/utf8"
)

// OneLine makes untrusted text safe for a single line, wherever hangdog
// shows or records one (a reason, a command, a notice): escape sequences
// are removed, and every control character (newlines included), bidi
// override and invalid byte becomes a space. Spacing is otherwise kept: a
// prompt's trailing space is part of what it looks like. Bidi overrides go
// because they could disguise what a line says.
func OneLine(s string) string {
	if strings.IndexByte(s, 0x1b) >= 0 {
		s = Plain([]byte(s))
	}
	if strings.ContainsFunc(s, unsafeInLine) {
		s = strings.Map(func(r rune) rune {
			if unsafeInLine(r) {
				return ' '
			}
			return r
		}, s)
	}
	return s
}

func unsafeInLine(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0x2028 || r == 0x2029 || r == utf8.RuneError ||
		(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}
