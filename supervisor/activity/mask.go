package activity

import "strings"

// Mask reduces a line to its shape, so that lines differing only in what
// changes from one iteration to the next compare equal: numbers (with their
// decimal, thousands and clock separators), durations (5s, 1.5ms, 2m30s),
// hex ids and UUIDs (at least 6 hex digits with a digit among them, or 0x…)
// each become "#", and runs of spaces become one. Timestamps and addresses
// come out as their punctuation around "#": 2024-01-02T03:04:05Z is
// "#-#-#T#Z", 10.0.0.1:8080 is "#".
func Mask(line string) string {
	var b strings.Builder
	b.Grow(len(line))
	space := false
	for i := 0; i < len(line); {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			space = true
			i++
			continue
		case space && b.Len() > 0:
			b.WriteByte(' ')
		}
		space = false
		if !isTokenByte(c) {
			b.WriteByte(c)
			i++
			continue
		}
		j := i
		for j < len(line) && (isTokenByte(line[j]) || thousandsComma(line, j)) {
			j++
		}
		maskToken(&b, line[i:j])
		i = j
	}
	return b.String()
}

// thousandsComma reports whether line[i] is a comma between digits (1,234).
func thousandsComma(line string, i int) bool {
	return line[i] == ',' && i > 0 && i+1 < len(line) && isDigit(line[i-1]) && isDigit(line[i+1])
}

func isTokenByte(c byte) bool {
	return isAlnum(c) || c == '_' || c == '.' || c == ':' || c == '-'
}

func isAlnum(c byte) bool { return isDigit(c) || isLetter(c) }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

func isHex(c byte) bool { return isDigit(c) || c|0x20 >= 'a' && c|0x20 <= 'f' }

// maskToken writes one word-like token masked.
func maskToken(b *strings.Builder, tok string) {
	core := strings.TrimRight(tok, ".:-")
	if isHexID(core) {
		writeHash(b)
		b.WriteString(tok[len(core):])
		return
	}
	for i := 0; i < len(tok); {
		if !isDigit(tok[i]) {
			b.WriteByte(tok[i])
			i++
			continue
		}
		i = skipNumber(tok, i)
		i = skipDurationUnit(tok, i)
		writeHash(b)
	}
}

// writeHash writes "#" unless the last thing written already is one, so a
// chained duration (2m30s) or a version (1.2.3-4) is one "#".
func writeHash(b *strings.Builder) {
	s := b.String()
	if len(s) > 0 && s[len(s)-1] == '#' {
		return
	}
	b.WriteByte('#')
}

// isHexID matches 0x-prefixed hex, and runs of hex digits and dashes (git
// hashes, UUIDs, container ids, dates) with at least 6 hex digits, one of
// them a digit.
func isHexID(s string) bool {
	if len(s) > 2 && s[0] == '0' && s[1]|0x20 == 'x' {
		for i := 2; i < len(s); i++ {
			if !isHex(s[i]) {
				return false
			}
		}
		return true
	}
	hexDigits, digits := 0, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case isDigit(c):
			digits++
			hexDigits++
		case isHex(c):
			hexDigits++
		case c == '-':
		default:
			return false
		}
	}
	return hexDigits >= 6 && digits > 0
}

// skipNumber returns the end of the number at tok[i]: digits, with single
// '.', ',' or ':' separators between digits.
func skipNumber(tok string, i int) int {
	for i < len(tok) {
		switch {
		case isDigit(tok[i]):
			i++
		case (tok[i] == '.' || tok[i] == ',' || tok[i] == ':') && i+1 < len(tok) && isDigit(tok[i+1]):
			i++
		default:
			return i
		}
	}
	return i
}

var durationUnits = []string{"ns", "us", "ms", "sec", "secs", "s", "min", "mins", "m", "hr", "hrs", "h", "d"}

// skipDurationUnit returns the end of a duration unit right after a number
// ("5s", "10ms"), or i when what follows is not one ("64k", "3rd").
func skipDurationUnit(tok string, i int) int {
	j := i
	for j < len(tok) && isLetter(tok[j]) {
		j++
	}
	if j == i {
		return i
	}
	word := tok[i:j]
	for _, u := range durationUnits {
		if word == u {
			return j
		}
	}
	return i
}
