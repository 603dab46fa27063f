package screen

import (
	"bytes"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/clipperhouse/displaywidth"
)

func write(t *testing.T, s *Screen, in string) {
	t.Helper()
	if _, err := s.Write([]byte(in)); err != nil {
		t.Fatalf("Write(%q): %v", in, err)
	}
}

func TestTextTerminalSemantics(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"lines", "one\r\ntwo\r\n", "one\ntwo\n"},
		{"carriage return rewrites", "50%\r100%\r\n", "100%\n"},
		{"shorter rewrite keeps the tail", "abcdef\rXY", "XYcdef"},
		{"erase to end of line", "downloading 10%\r\x1b[Kdone", "done"},
		{"erase whole line", "junk\x1b[2K\rok", "ok"},
		{"backspace", "ab\bc", "ac"},
		{"tab", "a\tb", "a       b"},
		{"osc title dropped", "\x1b]0;evil title\x07text", "text"},
		{"osc with ST dropped", "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"dcs dropped", "\x1bPq#0;2;0;0;0\x1b\\after", "after"},
		{"unknown csi dropped", "a\x1b[?25lb\x1b[5nc", "abc"},
		{"invalid utf8", "a\xffb", "a\uFFFDb"},
		{"truncated utf8 then ascii", "a\xe6\x97b", "a\uFFFDb"},
		{"combining mark", "e\u0301!", "e\u0301!"},
		{"c1 control dropped", "a\u0085b", "ab"},
		{"multi-line progress with cursor up", "a 1\r\nb 1\r\n\x1b[2A\ra 2\r\n\rb 2\r\n", "a 2\nb 2\n"},
		{"erase below", "keep\r\nx\r\ny\r\n\x1b[2A\x1b[J", "keep\n"},
		{"cursor forward pads", "a\x1b[3Cb", "a   b"},
		{"column absolute", "hello\x1b[2GE", "hEllo"},
		{"delete chars", "abcdef\r\x1b[2P", "cdef"},
		{"insert blanks", "abc\r\x1b[2@", "  abc"},
		{"erase chars", "abcdef\r\x1b[3X", "   def"},
		{"wide char overwritten in half", "日本\r\x1b[1Cx", " x本"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := New(100)
			write(t, s, c.in)
			if got := s.Text(); got != c.want {
				t.Fatalf("Text() = %q, want %q", got, c.want)
			}
		})
	}
}

func TestSplitWritesGiveSameText(t *testing.T) {
	in := "\x1b[1;31mred\x1b[0m 日本語 \x1b]0;t\x07progress 10%\r\x1b[Kprogress 100%\r\ndone ✓\r\n"
	whole := New(100)
	write(t, whole, in)
	for cut := 1; cut < len(in); cut++ {
		s := New(100)
		write(t, s, in[:cut])
		write(t, s, in[cut:])
		if s.Text() != whole.Text() {
			t.Fatalf("cut at %d: %q, want %q", cut, s.Text(), whole.Text())
		}
		a, _ := s.Render(RenderOptions{Width: 20, Height: 3})
		b, _ := whole.Render(RenderOptions{Width: 20, Height: 3})
		if strings.Join(a, "\n") != strings.Join(b, "\n") {
			t.Fatalf("cut at %d renders differently:\n%q\n%q", cut, a, b)
		}
	}
}

func TestRenderKeepsColours(t *testing.T) {
	s := New(10)
	write(t, s, "\x1b[1;31mred\x1b[0m plain \x1b[38;5;208morange\x1b[39m \x1b[48;2;1;2;3mtrue\x1b[m\r\n")
	rows, _ := s.Render(RenderOptions{Width: 80, Height: 1})
	want := "\x1b[0;1;31mred\x1b[0m plain \x1b[0;38;5;208morange\x1b[0m \x1b[0;48;2;1;2;3mtrue\x1b[0m"
	if rows[0] != want {
		t.Fatalf("row = %q\nwant  %q", rows[0], want)
	}
	rows, _ = s.Render(RenderOptions{Width: 80, Height: 1, NoColor: true})
	if rows[0] != "\x1b[0;1mred\x1b[0m plain \x1b[0morange\x1b[0m \x1b[0mtrue\x1b[0m" {
		t.Fatalf("NoColor row = %q", rows[0])
	}
}

func TestColonSubParameters(t *testing.T) {
	cases := map[string]style{
		"4:3":          {attrs: attrUnderline},
		"4:0":          {},
		"38:2::1:2:3":  {fg: rgb(1, 2, 3)},
		"38:2:1:2:3":   {fg: rgb(1, 2, 3)},
		"38:5:9":       {fg: 10},
		"1;38;5;9;42":  {attrs: attrBold, fg: 10, bg: 3},
		"38;2;300;0;0": {fg: rgb(255, 0, 0)},
		"":             {},
	}
	for in, want := range cases {
		if got := applySGR(style{attrs: attrItalic}, []byte(in)); in != "" && got != (style{attrs: attrItalic | want.attrs, fg: want.fg, bg: want.bg}) {
			t.Errorf("SGR %q = %+v, want italic plus %+v", in, got, want)
		} else if in == "" && got != (style{}) {
			t.Errorf("empty SGR must reset, got %+v", got)
		}
	}
}

func TestWrapAndRewrap(t *testing.T) {
	s := New(10)
	write(t, s, "0123456789\r\n日本語x")
	rows, _ := s.Render(RenderOptions{Width: 4, Height: 5})
	want := []string{"0123", "4567", "89", "日本", "語x"}
	if strings.Join(rows, "|") != strings.Join(want, "|") {
		t.Fatalf("width 4: %q, want %q", rows, want)
	}
	// A wide character never straddles a row: at width 5 "日本" fills 4 and
	// 語 moves down.
	rows, _ = s.Render(RenderOptions{Width: 5, Height: 4})
	want = []string{"01234", "56789", "日本", "語x"}
	if strings.Join(rows, "|") != strings.Join(want, "|") {
		t.Fatalf("width 5: %q, want %q", rows, want)
	}
	rows, _ = s.Render(RenderOptions{Width: 20, Height: 3})
	want = []string{"", "0123456789", "日本語x"}
	if strings.Join(rows, "|") != strings.Join(want, "|") {
		t.Fatalf("width 20: %q, want %q", rows, want)
	}
}

func TestScrollIsClamped(t *testing.T) {
	s := New(100)
	for i := 0; i < 10; i++ {
		write(t, s, strings.Repeat(string(rune('a'+i)), 3)+"\r\n")
	}
	rows, scroll := s.Render(RenderOptions{Width: 10, Height: 3, Scroll: 2})
	if scroll != 2 || strings.Join(rows, " ") != "fff ggg hhh" {
		t.Fatalf("scroll 2: %q (scroll %d)", rows, scroll)
	}
	rows, scroll = s.Render(RenderOptions{Width: 10, Height: 3, Scroll: 100})
	if scroll != 7 || strings.Join(rows, " ") != "aaa bbb ccc" {
		t.Fatalf("scroll 100: %q (scroll %d)", rows, scroll)
	}
}

func TestClearScreenStartsAPage(t *testing.T) {
	s := New(100)
	write(t, s, "old 1\r\nold 2\r\n\x1b[H\x1b[2J\x1b[3Jnew\r\n")
	rows, _ := s.Render(RenderOptions{Width: 10, Height: 3})
	if strings.Join(rows, "|") != "|new|" && strings.Join(rows, "|") != "||new" {
		t.Fatalf("after clear: %q", rows)
	}
	// Cursor positioning counts from the page, so a repaint overwrites it.
	write(t, s, "\x1b[1;1HNEW")
	rows, _ = s.Render(RenderOptions{Width: 10, Height: 3})
	if !strings.Contains(strings.Join(rows, "|"), "NEW") || strings.Contains(strings.Join(rows, "|"), "old") {
		t.Fatalf("repaint: %q", rows)
	}
	// History stays reachable by scrolling.
	rows, _ = s.Render(RenderOptions{Width: 10, Height: 3, Scroll: 1})
	if !strings.Contains(strings.Join(rows, "|"), "old 2") {
		t.Fatalf("scrolled: %q", rows)
	}
}

func TestFullScreenStopsTheParse(t *testing.T) {
	for _, seq := range []string{"\x1b[?1049h", "\x1b[?47h", "\x1b[?1047h", "\x1b[?1;1049h", "\x1b[?1h"} {
		s := New(10)
		in := []byte("before\r\n" + seq + "full screen")
		n, err := s.Write(in)
		var alt *FullScreenError
		if !errors.As(err, &alt) {
			t.Fatalf("%q: err = %v, want FullScreenError", seq, err)
		}
		if string(in[n:]) != "full screen" || string(alt.Seq) != seq || alt.AltScreen != (seq != "\x1b[?1h") {
			t.Fatalf("%q: rest %q, seq %q, alt %v", seq, in[n:], alt.Seq, alt.AltScreen)
		}
		if s.Text() != "before\n" {
			t.Fatalf("%q: text %q", seq, s.Text())
		}
	}
	// Split across writes: the second write reports it.
	s := New(10)
	write(t, s, "x\x1b[?10")
	n, err := s.Write([]byte("49hrest"))
	if err == nil || n != 3 {
		t.Fatalf("split: n=%d err=%v", n, err)
	}
	// Leaving the alternate screen, and other private modes, are not switches.
	s = New(10)
	write(t, s, "\x1b[?1049l\x1b[?25h\x1b[?2004h\x1b[?1lok")
}

// flood is `yes` through a PTY: "y\r\n" over and over.
func flood(lines int) []byte { return bytes.Repeat([]byte("y\r\n"), lines) }

func TestFloodSkipMatchesFullParse(t *testing.T) {
	in := append([]byte("head\r\npartial"), flood(5000)...)
	in = append(in, "tail 1\r\ntail 2 \xe6\x97"...)
	in = append(in, "\xa5 end"...)

	skipped := New(100)
	write(t, skipped, string(in))

	full := New(100)
	// Writes smaller than the ring never take the skip.
	for i := 0; i < len(in); i += 50 {
		write(t, full, string(in[i:min(i+50, len(in))]))
	}
	if skipped.Text() != full.Text() {
		t.Fatalf("skip changed the text:\n%q\n%q", tail(skipped.Text()), tail(full.Text()))
	}
	h1, d1 := skipped.Lines()
	h2, d2 := full.Lines()
	if h1 != h2 || d1 != d2 || h1 != 100 {
		t.Fatalf("lines: skipped %d/%d, full %d/%d", h1, d1, h2, d2)
	}
	if !strings.HasSuffix(skipped.Text(), "tail 2 日 end") {
		t.Fatalf("tail: %q", tail(skipped.Text()))
	}
}

func tail(s string) string { return s[max(0, len(s)-60):] }

func TestMemoryStaysBounded(t *testing.T) {
	s := New(1000)
	long := bytes.Repeat([]byte("x"), 100000)
	for i := 0; i < 100; i++ {
		write(t, s, string(long))
	}
	if s.cells > maxCells || s.count > 1000 {
		t.Fatalf("cells %d (max %d), lines %d", s.cells, maxCells, s.count)
	}
	held, _ := s.Lines()
	if held < 100 {
		t.Fatalf("only %d lines held; lines must break at %d cells, not vanish", held, maxLineCells)
	}
	// A hostile stream of distinct styles cannot grow the style table.
	for i := 0; i < 20000; i++ {
		write(t, s, "\x1b[38;2;"+itoa(i%256)+";"+itoa(i/256)+";1mx")
	}
	if len(s.styles) > maxStyles {
		t.Fatalf("%d styles", len(s.styles))
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

var sgrOnly = regexp.MustCompile(`\x1b\[[0-9;]*m`)

func FuzzScreen(f *testing.F) {
	f.Add([]byte("\x1b[31mred\r\n日本\x1b[2A\x1b[J\x1b]0;x\x07"), uint8(7))
	f.Add([]byte("\x1b[?1049h\x1b[H\x1b[2J\x1b[5;5Hx\x1bPq\x1b\\"), uint8(1))
	f.Add(flood(200), uint8(3))
	f.Fuzz(func(t *testing.T, in []byte, width uint8) {
		s := New(50)
		for len(in) > 0 {
			n, _ := s.Write(in)
			in = in[n:]
		}
		w := int(width%40) + 1
		rows, _ := s.Render(RenderOptions{Width: w, Height: 10, Scroll: 3})
		for _, r := range rows {
			plain := sgrOnly.ReplaceAllString(r, "")
			if strings.ContainsRune(plain, 0x1b) {
				t.Fatalf("row carries an escape that is not SGR: %q", r)
			}
			if got := displaywidth.String(plain); got > w {
				t.Fatalf("row %q is %d columns wide, more than %d", r, got, w)
			}
		}
	})
}

func BenchmarkWriteFlood(b *testing.B) {
	chunk := flood(1365) // a PTY read: ~4 KiB
	s := New(DefaultLines)
	b.SetBytes(int64(len(chunk)))
	for b.Loop() {
		s.Write(chunk)
	}
}

func BenchmarkWriteFloodBatched(b *testing.B) {
	chunk := flood(1 << 16) // what piles up while the UI draws
	s := New(DefaultLines)
	b.SetBytes(int64(len(chunk)))
	for b.Loop() {
		s.Write(chunk)
	}
}

func BenchmarkWriteColoured(b *testing.B) {
	chunk := bytes.Repeat([]byte("\x1b[32mok\x1b[0m  test/pkg/thing 0.012s 日本\r\n"), 100)
	s := New(DefaultLines)
	b.SetBytes(int64(len(chunk)))
	for b.Loop() {
		s.Write(chunk)
	}
}

func BenchmarkRender(b *testing.B) {
	s := New(DefaultLines)
	for i := 0; i < 2000; i++ {
		s.Write([]byte("\x1b[32mok\x1b[0m  github.com/hangdog/hangdog/some/package 0.012s 日本語 and more text to wrap\r\n"))
	}
	for b.Loop() {
		s.Render(RenderOptions{Width: 120, Height: 40})
	}
}
