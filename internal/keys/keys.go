// Package keys turns the escapes people type for keys (`y\n`, `\x03`) into
// the bytes a terminal would receive, for `bg send`, the shell and the MCP
// server alike.
package keys

import (
	"fmt"
	"strconv"
)

// Unescape interprets \n \r \t \e \0 \\ and \xHH; any other backslash stays
// as typed.
func Unescape(s string) ([]byte, error) {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i == len(s)-1 {
			out = append(out, c)
			continue
		}
		i++
		switch s[i] {
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'e':
			out = append(out, 0x1b)
		case '0':
			out = append(out, 0)
		case '\\':
			out = append(out, '\\')
		case 'x':
			if i+2 >= len(s) {
				return nil, fmt.Errorf("bad escape %q: \\x needs two hex digits, e.g. \\x03", s[i-1:])
			}
			b, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
			if err != nil {
				return nil, fmt.Errorf("bad escape %q: \\x needs two hex digits, e.g. \\x03", s[i-1:i+3])
			}
			out = append(out, byte(b))
			i += 2
		default:
			out = append(out, '\\', s[i])
		}
	}
	return out, nil
}
