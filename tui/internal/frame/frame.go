// Package frame fits what a view draws to the terminal, measuring text as
// terminals draw it.
package frame

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/clipperhouse/displaywidth"

	"github.com/hangdog/hangdog/internal/termtext/screen"
)

// Fit is the one place every frame passes before it reaches the
// terminal: exactly height lines, none wider than width columns as any
// terminal draws it, the last line (each view's status bar) on the last row.
// A view that renders too much loses rows above the bar, never the bar.
//
// Terminals do not agree on the width of a grapheme cluster: tmux 3.3 draws
// 👍🏽 as 4 columns (emoji, then the skin-tone modifier on its own) where
// kitty or WezTerm draw 2, and draws ❤️ as 1 where they draw 2. bubbletea
// measures clusters as the latter do, so a line it thinks fits can wrap in
// tmux, push every row below it down one and scroll the status bar off. Each
// cluster is therefore counted at the widest any of those readings gives,
// and a line holding such a cluster leaves its last column unused, so a
// terminal that reads it one column wider still does not wrap.
func Fit(view string, width, height int) string {
	if width < 1 || height < 1 {
		return ""
	}
	lines := strings.Split(view, "\n")
	body, bar := lines[:len(lines)-1], lines[len(lines)-1]
	if len(body) > height-1 {
		body = body[:height-1]
	}
	var b strings.Builder
	b.Grow(len(view) + height)
	for _, ln := range body {
		b.WriteString(Line(ln, width))
		b.WriteByte('\n')
	}
	// A short view is padded above the bar, which stays on the last row.
	for range height - 1 - len(body) {
		b.WriteByte('\n')
	}
	b.WriteString(Line(bar, width))
	return b.String()
}

// Line returns line cut to width columns as measured by clusterWidth.
// It keeps SGR sequences (colour and attributes), drops every other escape
// sequence and control character, which would move the cursor behind the
// renderer's back, and expands tabs to spaces at eight-column stops.
func Line(line string, width int) string {
	if plainFits(line, width) {
		return line
	}
	var b strings.Builder
	b.Grow(len(line))
	col, limit := 0, width
	ambiguous := false
	styled, cut := false, false
	// First pass: is there any cluster terminals disagree on? Then the line
	// may use width-1 columns.
	for s, state := line, byte(ansi.NormalState); len(s) > 0; {
		seq, _, n, st := ansi.DecodeSequence(s, state, nil)
		state = st
		if n <= 0 {
			break
		}
		if isText(seq) {
			if _, amb := clusterWidth(seq); amb {
				ambiguous = true
				break
			}
		}
		s = s[n:]
	}
	if ambiguous && width > 1 {
		limit = width - 1
	}
	for s, state := line, byte(ansi.NormalState); len(s) > 0 && !cut; {
		seq, _, n, st := ansi.DecodeSequence(s, state, nil)
		state = st
		if n <= 0 {
			break
		}
		s = s[n:]
		switch {
		case seq == "\t":
			next := min((col/8+1)*8, limit)
			if next <= col {
				cut = true
				break
			}
			b.WriteString(strings.Repeat(" ", next-col))
			col = next
		case isText(seq):
			w, _ := clusterWidth(seq)
			if col+w > limit {
				cut = true
				break
			}
			b.WriteString(seq)
			col += w
		case ansi.HasCsiPrefix(seq) && strings.HasSuffix(seq, "m"):
			b.WriteString(seq)
			styled = true
		}
		// Anything else (cursor movement, OSC, C0 and C1 controls) is dropped.
	}
	if styled && cut {
		b.WriteString("\x1b[0m")
	}
	return b.String()
}

// plainFits is the fast path: printable ASCII and SGR only, short enough.
func plainFits(line string, width int) bool {
	if len(line) <= width {
		for i := 0; i < len(line); i++ {
			if c := line[i]; c < 0x20 || c >= 0x7f {
				return false
			}
		}
		return true
	}
	return false
}

// isText says whether a decoded sequence is a printable grapheme cluster.
func isText(seq string) bool {
	if seq == "" {
		return false
	}
	c := seq[0]
	return c >= 0x20 && c != 0x7f && !(c == 0xc2 && len(seq) == 2 && seq[1] < 0xa0)
}

// clusterWidth is the widest a terminal may draw one grapheme cluster: the
// cluster's own width (what grapheme-aware terminals and bubbletea use) or
// the sum of its characters' widths (what tmux and xterm use), whichever is
// more. ambiguous reports that the two readings differ, or that the cluster
// joins emoji, which terminals render in their own ways.
func clusterWidth(cluster string) (w int, ambiguous bool) {
	if len(cluster) == 1 {
		return 1, false
	}
	whole := displaywidth.String(cluster)
	sum := 0
	for _, r := range cluster {
		sum += max(displaywidth.Rune(r), 0)
		if screen.Joiner(r) {
			ambiguous = true
		}
	}
	return max(whole, sum), ambiguous || whole != sum
}

// Width is how many columns Line counts a line as.
func Width(line string) int {
	col := 0
	for s, state := line, byte(ansi.NormalState); len(s) > 0; {
		seq, _, n, st := ansi.DecodeSequence(s, state, nil)
		state = st
		if n <= 0 {
			break
		}
		s = s[n:]
		if seq == "\t" {
			col = (col/8 + 1) * 8
		} else if isText(seq) {
			w, _ := clusterWidth(seq)
			col += w
		}
	}
	return col
}

// Clip cuts s to at most n columns as Line counts them, ending a cut with
// "…".
func Clip(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if Width(s) <= n {
		return s
	}
	return Line(s, n-1) + "…"
}
