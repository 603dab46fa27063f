package termtext

import (
	"strings"
	"testing"
)

func TestLastLines(t *testing.T) {
	cases := []struct {
		text string
		n    int
		want string
	}{
		{"a\nb\nc\n", 2, "b\nc"},
		{"a\nb\nc", 2, "b\nc"},
		{"a\nb\n", 5, "a\nb"},
		{"only", 1, "only"},
		{"", 3, ""},
		{"a\n\n\n", 1, "a"},
		{"x\ny", 0, ""},
	}
	for _, c := range cases {
		if got := LastLines(c.text, c.n); got != c.want {
			t.Errorf("LastLines(%q, %d) = %q, want %q", c.text, c.n, got, c.want)
		}
	}
}

func TestClip(t *testing.T) {
	cases := []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"abcdefghij", 6, "abc…"},
		{"héllo wörld", 5, "h…"},
		{"日本語テキスト", 7, "日…"},
	}
	for _, c := range cases {
		got := Clip(c.s, c.n)
		if got != c.want || len(got) > max(c.n, len("…")) {
			t.Errorf("Clip(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}

func TestCapMiddle(t *testing.T) {
	short := "hello"
	if CapMiddle(short, 10) != short {
		t.Error("CapMiddle changed a short string")
	}
	long := strings.Repeat("é", 5000) + "END" // 10003 bytes, two-byte runes
	got := CapMiddle(long, 8000)
	if len(got) > 8000 {
		t.Errorf("capped to %d bytes, cap %d", len(got), 8000)
	}
	if !strings.HasSuffix(got, "END") || !strings.HasPrefix(got, "éé") || !strings.Contains(got, "characters left out") {
		t.Errorf("CapMiddle lost the head, the end or the note: %.60q…", got)
	}
	if !strings.HasSuffix(strings.Split(got, "\n")[0], "é") {
		t.Error("CapMiddle cut a rune in half")
	}
}
