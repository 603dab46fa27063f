package tui

import (
	"strings"
	"testing"
	"time"

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

func TestStatusBarFitsEveryWidth(t *testing.T) {
	m := &Model{action: "background", bgRunning: 3, bgNew: 2, scroll: 40,
		fg:      &foreground{command: "make -j8 all && ./scripts/deploy.sh --env staging", started: time.Now()},
		verdict: VerdictMsg{Status: "stuck", Confidence: 0.92, Streak: 1, Need: 2}}
	m.fg.watchdog.Enabled, m.fg.watchdog.WatchBash = true, true
	full := ""
	for w := 200; w >= 8; w-- {
		m.width = w
		bar := m.statusBar(time.Now())
		plain := ansi.Strip(bar)
		if frameWidth(bar) > w-1 {
			t.Fatalf("width %d: the bar is %d columns: %q", w, frameWidth(bar), plain)
		}
		if !strings.HasSuffix(strings.TrimRight(plain, " "), "/help") {
			t.Fatalf("width %d: no /help: %q", w, plain)
		}
		if w == 200 {
			full = plain
		}
		// Every word shown is a word of the full bar, or the marks.
		for _, word := range strings.Fields(plain) {
			if !strings.Contains(full, word) && word != "…" && !strings.HasSuffix(word, "…") && !strings.HasPrefix(word, "+") {
				t.Fatalf("width %d: %q is cut from the full bar %q: %q", w, word, full, plain)
			}
		}
	}
	if !strings.Contains(full, "action: background") || !strings.Contains(full, "stuck 0.92 (1/2)") {
		t.Fatalf("the full bar: %q", full)
	}
}
