package termtext

import "testing"

func TestOneLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain", "plain"},
		{"two\nlines\r\n", "two lines  "},
		{"tab\there", "tab here"},
		{"\x1b[31mred\x1b[0m text", "red text"},
		{"bell\x07 and del\x7f", "bell  and del "},
		{"bidi \u202eevil\u202c", "bidi  evil "},
		{"prompt? ", "prompt? "},
		{"bad \xff byte", "bad   byte"},
	} {
		if got := OneLine(c.in); got != c.want {
			t.Errorf("OneLine(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
