package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// hostile are lines terminals and width tables disagree on, or that are
// simply too much: every frame must survive them.
var hostile = []string{
	"👍🏽 thumbs up, medium skin tone",
	"👨‍👩‍👧 family (ZWJ) 🏳️‍🌈 flag (ZWJ) 🧑🏿‍💻 coder",
	"🇺🇸🇯🇵🇩🇪 flags 🇺 a lone regional indicator",
	"❤️ heart with VS16 ☺ smiley ✔️ check",
	"日本語のテキストと中文字符 한국어",
	"e\u0301 combining acute a\u0308\u0308\u0308 stacked",
	"tabs\there\tand\t\tthere\t|",
	"\x1b[31mred\x1b[0m \x1b[1;4mbold\x1b[0m \x1b]0;title\x07 \x1b7\x1b[5A up\x1b8 \x1b[10C right \x1b[2K erased",
	strings.Repeat("x", 10000),
	strings.Repeat("日", 5000),
	strings.Repeat("👍🏽", 300),
}

func TestFitFrameNeverOverflows(t *testing.T) {
	for _, size := range [][2]int{{20, 5}, {60, 15}, {120, 35}, {250, 60}} {
		w, h := size[0], size[1]
		for _, body := range []int{0, 1, h - 1, h, 3 * h} {
			var lines []string
			for i := range body {
				lines = append(lines, hostile[i%len(hostile)])
			}
			lines = append(lines, "BAR "+hostile[0]+" /help")
			got := strings.Split(fitFrame(strings.Join(lines, "\n"), w, h), "\n")
			if len(got) != h {
				t.Fatalf("%dx%d, %d body lines: %d rows", w, h, body, len(got))
			}
			for i, r := range got {
				if fw := frameWidth(r); fw > w {
					t.Fatalf("%dx%d: row %d is %d columns: %q", w, h, i, fw, r)
				}
				if sw := ansi.StringWidth(r); sw > w {
					t.Fatalf("%dx%d: row %d is %d columns to bubbletea: %q", w, h, i, sw, r)
				}
				if strings.ContainsAny(ansi.Strip(r), "\t\x07") || strings.Contains(r, "\x1b[5A") || strings.Contains(r, "\x1b]") {
					t.Fatalf("%dx%d: row %d keeps a control: %q", w, h, i, r)
				}
			}
			if !strings.HasPrefix(got[h-1], "BAR") {
				t.Fatalf("%dx%d, %d body lines: last row %q", w, h, body, got[h-1])
			}
		}
	}
}

func TestFitLineLeavesTheLastColumnWhenTerminalsDisagree(t *testing.T) {
	plain := strings.Repeat("a", 30)
	if got := fitLine(plain, 20); got != plain[:20] {
		t.Fatalf("plain line: %q", got)
	}
	emoji := "👍🏽" + plain
	if got := frameWidth(fitLine(emoji, 20)); got != 19 {
		t.Fatalf("a line with 👍🏽 uses %d of 20 columns, want 19", got)
	}
	if got := fitLine("\x1b[31m"+plain, 10); got != "\x1b[31m"+plain[:10]+"\x1b[0m" {
		t.Fatalf("styled cut: %q", got)
	}
}

// TestFrameInTmux prints the hostile lines in the real shell at four sizes
// and reads back what tmux drew: no row wider than the pane, no more rows,
// the status bar on the last one, also in /bg with hostile command lines.
func TestFrameInTmux(t *testing.T) {
	for _, size := range [][2]int{{20, 5}, {60, 15}, {120, 35}, {250, 60}} {
		w, h := size[0], size[1]
		t.Run(fmt.Sprintf("%dx%d", w, h), func(t *testing.T) {
			p := startPane(t, w, h)
			p.idle()
			// The case: an emoji tmux draws 4 wide, then a line
			// that exactly fills the width as bubbletea counts it. It must
			// arrive whole, wrapped but with nothing lost or drawn twice.
			whole := "👍🏽" + strings.Repeat("x", w-3) + "END"
			p.typeLine(p.script("issue", fmt.Sprintf("printf '%%s\\n' '%s'\n", whole)))
			rows := p.wait("the emoji line", func(rows []string) bool {
				return strings.Contains(strings.Join(rows, "\n"), "END") && strings.Contains(bar(rows), "idle")
			})
			p.checkFrame(rows, "after the emoji line")
			if joined := strings.Join(rows, ""); !strings.Contains(strings.ReplaceAll(joined, " ", ""), whole) {
				t.Fatalf("the emoji line is not drawn whole:\n%s", strings.Join(rows, "\n"))
			}

			var body strings.Builder
			for _, l := range hostile {
				fmt.Fprintf(&body, "printf '%%s\\n' %s\n", shellQuote(l))
			}
			body.WriteString("echo HOSTILE-$((40+2))-DONE\n")
			p.typeLine(p.script("hostile", body.String()))
			rows = p.wait("the hostile output", func(rows []string) bool {
				return strings.Contains(strings.Join(rows, "\n"), "HOSTILE-42-DONE") && strings.Contains(bar(rows), "idle")
			})
			p.checkFrame(rows, "after the hostile lines")

			// A background task whose command line is hostile, listed in /bg.
			p.typeLine(p.script("👍🏽👨‍👩‍👧🇺🇸日本語", "echo started-$((1+1)); sleep 60\n") + " " + strings.Repeat("👍🏽 ", 40))
			p.waitFor("started-2")
			p.keys("C-b")
			p.idle()
			p.typeLine("/bg")
			rows = p.wait("the /bg list", func(rows []string) bool {
				return strings.HasPrefix(rows[0], "background tasks") && strings.Contains(strings.Join(rows, "\n"), "▶ t")
			})
			p.checkFrame(rows, "/bg")
			p.keys("Escape")
			rows = p.idle()
			p.checkFrame(rows, "after /bg")
		})
	}
}

// shellQuote quotes s for bash as $'…', so escapes reach printf as bytes.
func shellQuote(s string) string {
	var b strings.Builder
	b.WriteString("$'")
	for _, r := range s {
		switch {
		case r == '\'' || r == '\\':
			b.WriteString(`\` + string(r))
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteString("'")
	return b.String()
}
