package jev

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hangdog/hangdog/internal/termtext"
)

// inWords reports whether w is one of the space-separated words in list.
// The command tables are written as such lists so they are constant data,
// not maps built at start-up.
func inWords(list, w string) bool {
	for list != "" {
		var f string
		f, list, _ = strings.Cut(list, " ")
		if f == w && f != "" {
			return true
		}
	}
	return false
}

// hasFlag reports whether args (before a `--`) hold one of the flags in the
// space-separated list, alone or as --flag=value.
func hasFlag(args []string, flags string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name, _, _ := strings.Cut(a, "=")
		if inWords(flags, a) || (strings.HasPrefix(a, "--") && inWords(flags, name)) {
			return true
		}
	}
	return false
}

// hasShort reports whether a cluster of short options (-xvf, -fn100) in args
// holds one of the letters. Letters after a digit are an attached value.
func hasShort(args []string, letters string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if len(a) < 2 || a[0] != '-' || a[1] == '-' {
			continue
		}
		for _, c := range a[1:] {
			if c >= '0' && c <= '9' || c == '=' {
				break
			}
			if strings.ContainsRune(letters, c) {
				return true
			}
		}
	}
	return false
}

// indexOf returns the index of the first of args equal to one of words, or -1.
func indexOf(args []string, words ...string) int {
	for i, a := range args {
		for _, w := range words {
			if a == w {
				return i
			}
		}
	}
	return -1
}

// positionals returns the operands in args: words that are not options and
// not the values of the options listed in withArg. A word like -5 is an
// option (head -5), not a negative number.
func positionals(args []string, withArg string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(out, args[i+1:]...)
		case len(a) > 1 && a[0] == '-':
			if !strings.Contains(a, "=") && inWords(withArg, a) {
				i++
			}
		default:
			out = append(out, a)
		}
	}
	return out
}

// firstPositional is positionals(args, withArg)[0], or "".
func firstPositional(args []string, withArg string) string {
	if p := positionals(args, withArg); len(p) > 0 {
		return p[0]
	}
	return ""
}

func isNumber(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if (s[i] < '0' || s[i] > '9') && s[i] != '.' {
			return false
		}
	}
	return true
}

// Printable makes untrusted text safe to show in a terminal or a log line:
// escape sequences and other control characters become spaces, so output
// quoted as evidence cannot move a cursor, change colours or forge lines.
func Printable(s string) string {
	if !strings.ContainsFunc(s, needsCleaning) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == 0x1b { // skip a whole CSI/OSC sequence, not just the ESC
			i += escapeLength(s[i:])
			b.WriteByte(' ')
			continue
		}
		if needsCleaning(r) {
			b.WriteByte(' ')
		} else {
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

func needsCleaning(r rune) bool {
	return r == utf8.RuneError || (unicode.IsControl(r) && r != ' ') || r == 0x2028 || r == 0x2029 ||
		(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) // bidi overrides
}

// escapeLength returns the length of the escape sequence at the start of s.
func escapeLength(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch s[1] {
	case '[': // CSI: parameters, then a final byte in 0x40..0x7e
		for i := 2; i < len(s); i++ {
			if s[i] >= 0x40 && s[i] <= 0x7e {
				return i + 1
			}
		}
		return len(s)
	case ']', 'P', '_', '^': // OSC/DCS/APC/PM: up to BEL or ESC \
		for i := 2; i < len(s); i++ {
			if s[i] == 0x07 {
				return i + 1
			}
			if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
		}
		return len(s)
	}
	return 2
}

// quoteOutput shows untrusted output in evidence: made printable, redacted,
// shortened, in backquotes.
func quoteOutput(s string, n int) string {
	return "`" + strings.ReplaceAll(termtext.Clip(Redact(Printable(s)), n), "`", "'") + "`"
}
