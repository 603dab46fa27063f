package termtext

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPlain(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain text passes through", "hello\nworld\n", "hello\nworld\n"},
		{"unfinished last line kept without newline", "a\nprompt> ", "a\nprompt> "},
		{"crlf becomes lf", "one\r\ntwo\r\n", "one\ntwo\n"},
		{"carriage return overwrites from column 0", "50%\r100%\n", "100%\n"},
		{"shorter overwrite keeps the tail like a terminal", "100%\r50%\n", "50%%\n"},
		{"many progress updates", "1/3\r2/3\r3/3\ndone\n", "3/3\ndone\n"},
		{"erase to end of line after return", "100%\r\x1b[K50%\n", "50%\n"},
		{"erase whole line then return", "downloading\x1b[2K\rok\n", "ok\n"},
		{"erase whole line restarts at column 0", "downloading\x1b[2Kok\n", "ok\n"},
		{"erase to the left is only removed", "abcdef\x1b[3D\x1b[1K\n", "abcdef\n"},
		{"cursor column absolute", "abcdef\x1b[3GX\n", "abXdef\n"},
		{"cursor back and forward", "abc\x1b[2DX\x1b[CY\n", "aXcY\n"},
		{"cursor forward past the end pads", "ab\x1b[3Cc\n", "ab   c\n"},
		{"backspace moves left and overwrites", "abc\b\bX\n", "aXc\n"},
		{"backspace at column 0 stays", "\b\bab\n", "ab\n"},
		{"tab kept", "a\tb\n", "a\tb\n"},
		{"colours removed", "\x1b[1;31mred\x1b[0m plain\n", "red plain\n"},
		{"private mode sequences removed", "\x1b[?25l\x1b[?1049hx\x1b[?25h\n", "x\n"},
		{"osc title with BEL removed", "\x1b]0;title\x07text\n", "text\n"},
		{"osc hyperlink with ST keeps the link text", "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\\n", "link\n"},
		{"unterminated osc ends at newline", "\x1b]0;title\nnext\n", "\nnext\n"},
		{"dcs string removed", "a\x1bPq#0;2;0;0;0\x1b\\b\n", "ab\n"},
		{"apc string removed", "a\x1b_Gf=100;AAAA\x1b\\b\n", "ab\n"},
		{"charset designation removed", "\x1b(Bx\x1b)0y\n", "xy\n"},
		{"two byte escapes removed", "\x1b7a\x1b8b\x1b=c\x1b>\n", "abc\n"},
		{"CAN cancels a sequence", "\x1b[31\x18x\n", "x\n"},
		{"ESC inside CSI starts a new sequence", "\x1b[31\x1b[32mx\n", "x\n"},
		{"newline inside CSI still ends the line", "a\x1b[3\nm\nb\n", "a\n\nb\n"},
		{"other controls dropped", "a\x00b\x07c\x0ed\x0fe\x7ff\n", "abcdef\n"},
		{"C1 control characters dropped", "a\u009b31mb\u0085c\n", "a31mbc\n"},
		{"utf8 kept", "héllo → 世界\n", "héllo → 世界\n"},
		{"utf8 overwritten by column", "日本語\rX\n", "X本語\n"},
		{"invalid utf8 becomes U+FFFD", "a\xffb\n", "a\uFFFDb\n"},
		{"broken sequence keeps the byte after it", "a\xe2(b\n", "a\uFFFD(b\n"},
		{"broken sequence before ESC keeps the escape working", "\xe2\x82\x1b[31mx\n", "\uFFFD\uFFFDx\n"},
		{"truncated character at end", "ok\xe2\x82", "ok\uFFFD\uFFFD"},
		{"surrogate encoding is invalid", "\xed\xa0\x80\n", "\uFFFD\uFFFD\uFFFD\n"},
		{"unterminated escape at end dropped", "text\x1b[3", "text"},
		{"8-bit byte aborts an escape and reads as text", "\x1b[3\xc3\xa9\n", "é\n"},
		{"literal replacement character kept", "\uFFFD\n", "\uFFFD\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Plain([]byte(tt.in)); got != tt.want {
				t.Errorf("Plain(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// Every split of the input across Write calls must give the same text as one
// Write: escape sequences and characters often straddle PTY reads.
func TestWriterSplitsGiveSameText(t *testing.T) {
	inputs := []string{
		"\x1b[1;31mred\x1b[0m 50%\r100%\r\n",
		"héllo 世界\x1b]0;t\x1b\\x\xe2(y\n",
		"a\x1b]8;;http://x\x07link\x1b]8;;\x07\tb\x1b[2K\rc\bd\n",
		"\x1b[?25l\x1b(B\x1b[10Gq\x1b[3Dr\x1b[K\r\n",
	}
	for _, in := range inputs {
		want := Plain([]byte(in))
		for cut := 0; cut <= len(in); cut++ {
			for cut2 := cut; cut2 <= len(in); cut2++ {
				if got := plainInPieces([]byte(in), cut, cut2); got != want {
					t.Fatalf("input %q cut at %d,%d: got %q, want %q", in, cut, cut2, got, want)
				}
			}
		}
	}
}

func plainInPieces(in []byte, cuts ...int) string {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	prev := 0
	for _, c := range cuts {
		_, _ = w.Write(in[prev:c])
		prev = c
	}
	_, _ = w.Write(in[prev:])
	_ = w.Close()
	return buf.String()
}

func TestWriterPassesFinishedLinesOnBeforeFlush(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	if _, err := w.Write([]byte("first\nsecond, no newline yet")); err != nil {
		t.Fatal(err)
	}
	if buf.String() != "first\n" {
		t.Fatalf("before Flush got %q, want only the finished line", buf.String())
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if buf.String() != "first\nsecond, no newline yet" {
		t.Fatalf("after Flush got %q", buf.String())
	}
}

func TestWriterFlushKeepsSplitEscapeSequence(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	_, _ = w.Write([]byte("a\x1b[3"))
	_ = w.Flush()
	_, _ = w.Write([]byte("1mb\xe2"))
	_ = w.Flush()
	_, _ = w.Write([]byte("\x82\xac\n"))
	_ = w.Close()
	if got, want := buf.String(), "ab€\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestWriterFlushThenRedraw(t *testing.T) {
	tests := []struct {
		name   string
		pieces []string // Flush after each
		want   string
	}{
		{"appending after a flush continues the line", []string{"Password: ", "hunter2\n"}, "Password: hunter2\n"},
		{"progress states each get a line", []string{"10%", "\r20%", "\r30%\n"}, "10%\n20%\n30%\n"},
		{"erase after flush then text", []string{"loading", "\x1b[2K\rdone\n"}, "loading\ndone\n"},
		{"erase after flush then newline only", []string{"prompt> ", "\x1b[2K\r", "\n"}, "prompt> \n"},
		{"backspace spinner", []string{"working |", "\b/", "\b-\n"}, "working |\nworking /\nworking -\n"},
		{"flush with nothing new writes nothing", []string{"abc", "", "", "d\n"}, "abcd\n"},
		{"overwrite beyond the flushed part only appends", []string{"ab", "\x1b[3Gc\n"}, "abc\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			w := NewWriter(&buf)
			for _, p := range tt.pieces {
				_, _ = w.Write([]byte(p))
				_ = w.Flush()
			}
			_ = w.Close()
			if buf.String() != tt.want {
				t.Fatalf("got %q, want %q", buf.String(), tt.want)
			}
		})
	}
}

// A line with no newline at all must not be held in memory whole: it is
// passed on in pieces of maxLineCells characters.
func TestWriterLongLineWrittenInPieces(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	long := strings.Repeat("x", 3*maxLineCells+5)
	if _, err := w.Write([]byte(long)); err != nil {
		t.Fatal(err)
	}
	if buf.Len() != 3*maxLineCells {
		t.Fatalf("before Flush %d bytes passed on, want %d", buf.Len(), 3*maxLineCells)
	}
	if cap(w.line) > 2*maxLineCells {
		t.Fatalf("line buffer grew to %d cells", cap(w.line))
	}
	_ = w.Flush()
	if buf.String() != long {
		t.Fatalf("text changed: %d bytes out, %d in", buf.Len(), len(long))
	}
}

func TestWriterCursorJumpIsCapped(t *testing.T) {
	got := Plain([]byte("\x1b[999999999999999999999Gx\x1b[99999999Cy\n"))
	want := strings.Repeat(" ", maxCursorJump-1) + "x" + strings.Repeat(" ", maxCursorJump) + "y\n"
	if got != want {
		t.Fatalf("got %d bytes, want %d", len(got), len(want))
	}
}

// Moving right past the last cell of a maximal line clamps there, as a
// terminal clamps at its right margin.
func TestWriterCursorClampedToLineEnd(t *testing.T) {
	in := strings.Repeat("a", maxLineCells-1) + "\x1b[9Cz\n"
	want := strings.Repeat("a", maxLineCells-1) + "z\n"
	if got := Plain([]byte(in)); got != want {
		t.Fatalf("got %d bytes ending %q, want %d ending %q", len(got), got[len(got)-3:], len(want), want[len(want)-3:])
	}
}

type failingWriter struct{ calls int }

func (f *failingWriter) Write(p []byte) (int, error) {
	f.calls++
	return 0, errors.New("disk full")
}

func TestWriterReportsUnderlyingError(t *testing.T) {
	fw := &failingWriter{}
	w := NewWriter(fw)
	if _, err := w.Write([]byte("line\n")); err == nil {
		t.Fatal("Write returned nil after the underlying writer failed")
	}
	if _, err := w.Write([]byte("more\n")); err == nil {
		t.Fatal("second Write returned nil")
	}
	if err := w.Flush(); err == nil {
		t.Fatal("Flush returned nil")
	}
	if fw.calls != 1 {
		t.Fatalf("underlying writer called %d times after failing, want 1", fw.calls)
	}
}

func FuzzPlain(f *testing.F) {
	seeds := []string{
		"50%\r100%\n", "\x1b[1;31mred\x1b[0m", "\x1b]0;t\x07x", "\x1bPq\x1b\\", "a\xe2(b",
		"\x1b[3\xc3\xa9", "\x1b[2K\rok", "ab\b\bc\t", "\x1b\x1b[", "\x9b31m", "\xc2\x9b",
	}
	for _, s := range seeds {
		f.Add([]byte(s), uint16(len(s)/2))
	}
	f.Fuzz(func(t *testing.T, in []byte, cut uint16) {
		got := Plain(in)
		if strings.IndexByte(got, 0x1b) >= 0 {
			t.Fatalf("output contains ESC: %q", got)
		}
		if !utf8.ValidString(got) {
			t.Fatalf("output is not valid UTF-8: %q", got)
		}
		for _, r := range got {
			if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r < 0xa0) {
				t.Fatalf("output contains control %U: %q", r, got)
			}
		}
		if n := strings.Count(got, "\n"); n > bytes.Count(in, []byte{'\n'}) {
			t.Fatalf("output has %d newlines, input only %d", n, bytes.Count(in, []byte{'\n'}))
		}
		c := int(cut) % (len(in) + 1)
		if split := plainInPieces(in, c); split != got {
			t.Fatalf("split at %d gives %q, whole gives %q", c, split, got)
		}
		// Flushing mid-stream may add line breaks but nothing unsafe.
		var buf bytes.Buffer
		w := NewWriter(&buf)
		_, _ = w.Write(in[:c])
		_ = w.Flush()
		_, _ = w.Write(in[c:])
		_ = w.Flush()
		_ = w.Close()
		if flushed := buf.String(); strings.IndexByte(flushed, 0x1b) >= 0 || !utf8.ValidString(flushed) {
			t.Fatalf("with a Flush at %d: %q", c, flushed)
		}
	})
}
