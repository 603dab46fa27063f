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
	m := &Model{action: "background", bgRunning: 3, bgNew: 2, scroll: 40, watching: 2,
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
	if !strings.Contains(full, "action: background") || !strings.Contains(full, "stuck 0.92 (1/2)") || !strings.Contains(full, "watch: 2 active") {
		t.Fatalf("the full bar: %q", full)
	}
}

// The watchers' count gives way after the action mode and before the
// background count: at a width where one of them must go, action goes and
// "watch: N" stays whole; narrower, it shortens to "watch: N", then goes.
func TestStatusBarWatchersGiveWayByPriority(t *testing.T) {
	m := &Model{action: "background", bgRunning: 1, watching: 3}
	width := func(w int) string { m.width = w; return ansi.Strip(m.statusBar(time.Now())) }
	if b := width(120); !strings.Contains(b, "watch: 3 active") || !strings.Contains(b, "action: background") {
		t.Fatalf("120 columns: %q, want every field", b)
	}
	if b := width(60); strings.Contains(b, "action:") || !strings.Contains(b, "watch: 3 active") || !strings.Contains(b, "bg: 1 running") {
		t.Fatalf("60 columns: %q, want action gone first and the watchers whole", b)
	}
	if b := width(46); strings.Contains(b, "watch: 3 active") || !strings.Contains(b, "watch: 3 ") {
		t.Fatalf("46 columns: %q, want the short form watch: 3", b)
	}
	m.watching = 0
	if b := width(120); strings.Contains(b, "watch") {
		t.Fatalf("no active watchers: %q, want no watch field", b)
	}
}
