package termtext

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// events tokenizes in with a cut at each given offset and writes each token
// as a short string; text runs split by a cut are joined again.
func events(in string, newlineEnds bool, cuts ...int) []string {
	t := Tokenizer{NewlineEndsString: newlineEnds}
	var out []string
	text := ""
	flushText := func() {
		if text != "" {
			out = append(out, "text "+text)
			text = ""
		}
	}
	prev := 0
	for _, c := range append(cuts, len(in)) {
		p := []byte(in[prev:c])
		prev = c
		for guard := 0; len(p) > 0; guard++ {
			if guard > 4*len(in)+8 {
				panic("Next makes no progress")
			}
			kind, n := t.Next(p)
			p = p[n:]
			tok := t.Token()
			if kind == KindText {
				text += string(tok.Text)
				continue
			}
			if kind != KindNone {
				flushText()
			}
			switch kind {
			case KindRune:
				out = append(out, fmt.Sprintf("rune %c", tok.Rune))
			case KindInvalid:
				out = append(out, fmt.Sprintf("invalid %d", tok.N))
			case KindControl:
				out = append(out, fmt.Sprintf("control %#x", tok.Final))
			case KindEsc:
				out = append(out, fmt.Sprintf("esc %q%q", tok.Inter, tok.Final))
			case KindCSI:
				out = append(out, fmt.Sprintf("csi %q %s %q %c", tok.Private, tok.Params, tok.Inter, tok.Final))
			}
		}
	}
	flushText()
	if n := t.Reset(); n > 0 {
		out = append(out, fmt.Sprintf("dropped %d", n))
	}
	return out
}

func TestTokenizer(t *testing.T) {
	for _, tc := range []struct {
		in          string
		newlineEnds bool
		want        string
	}{
		{"ab\r\n", false, "text ab|control 0xd|control 0xa"},
		{"\x1b[1;31mx", false, "csi '\\x00' 1;31 '\\x00' m|text x"},
		{"\x1b[?1049h", false, "csi '?' 1049 '\\x00' h"},
		{"\x1b[1 q", false, "csi '\\x00' 1 ' ' q"},
		{"\x1b(B\x1b7", false, "esc '(''B'|esc '\\x00''7'"},
		{"\x1b]0;title\x07x\x1b]8;;u\x1b\\y", false, "text xy"},
		{"\x1b]0;t\nx", true, "control 0xa|text x"},
		{"\x1b]0;t\nx", false, ""},
		{"\x1b]0;t\x1b[2Kx", false, "csi '\\x00' 2 '\\x00' K|text x"},
		{"\x1b[3\x1b[32mx", false, "csi '\\x00' 32 '\\x00' m|text x"},
		{"\x1b[31\x18x", false, "text x"},
		{"\x1b[3\nm", false, "control 0xa|csi '\\x00' 3 '\\x00' m"},
		{"\x1b[3\xc3\xa9", false, "rune é"},
		{"é世\u0085\u00a0", false, "rune é|rune 世|rune \u00a0"},
		{"a\xffb", false, "text a|invalid 1|text b"},
		{"a\xe6\x97b", false, "text a|invalid 2|text b"},
		{"\xed\xa0\x80", false, "invalid 1|invalid 1|invalid 1"},
		{"\xe2\x82\x1b[31mx", false, "invalid 2|csi '\\x00' 31 '\\x00' m|text x"},
		{"ok\xe2\x82", false, "text ok|dropped 2"},
		{"\x1b[" + strings.Repeat("1", maxParamBytes+1) + "mx", false, "text x"},
		{"a\x7f\x00", false, "text a|control 0x7f|control 0x0"},
	} {
		want := []string{}
		if tc.want != "" {
			want = strings.Split(tc.want, "|")
		}
		whole := events(tc.in, tc.newlineEnds)
		if !slices.Equal(whole, want) {
			t.Errorf("%q: got %q, want %q", tc.in, whole, want)
		}
		for c := 0; c <= len(tc.in); c++ {
			if split := events(tc.in, tc.newlineEnds, c); !slices.Equal(split, whole) {
				t.Errorf("%q cut at %d: got %q, whole gives %q", tc.in, c, split, whole)
			}
		}
	}
}
