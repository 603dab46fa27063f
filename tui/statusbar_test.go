package tui

import (
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestClipCountsColumnsNotRunes(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"make test", 20, "make test"},
		{"make test", 6, "make …"},
		{"日本語のコマンド", 7, "日本語…"}, // each kanji is two columns
		{"x", 0, ""},
	} {
		got := clip(c.in, c.n)
		if got != c.want || ansi.StringWidth(got) > c.n {
			t.Errorf("clip(%q, %d) = %q (%d columns), want %q", c.in, c.n, got, ansi.StringWidth(got), c.want)
		}
	}
}
