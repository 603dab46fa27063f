package taskctl

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func windowOf(raw []byte) Window {
	c := NewCapture()
	_, _ = c.Write(raw)
	return c.Window()
}

func shapeOutput(w Window, limit int, id string) string { return Shape(w, limit, id, testCalls{}).Text }

func TestShapeOutputShortIsPlainAndWhole(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"hello\n", "hello\n"},
		{"\x1b[1;32mok\x1b[0m\r\n", "ok\n"},
		{"10%\r50%\r100%\ndone", "100%\ndone"},
		{"abc\bd\n", "abd\n"},
	} {
		if got := shapeOutput(windowOf([]byte(tc.in)), 1000, "t1"); got != tc.want {
			t.Errorf("shapeOutput(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

var noteRe = regexp.MustCompile(`\[… .* left out here \(bytes (\d+)-(\d+) of the task's log\); read it with LOGSFROM\(t7, (\d+)\) …\]\n`)

// numbered is lines "line 1".."line n", each ending in a newline.
func numbered(n int) []byte {
	var b bytes.Buffer
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.Bytes()
}

// checkCut verifies that a cut result shows a prefix and a suffix of the
// plain output, whole lines, and that the note's byte range is exactly the
// raw bytes between them.
func checkCut(t *testing.T, raw []byte, got string, limit int) {
	t.Helper()
	m := noteRe.FindStringSubmatchIndex(got)
	if m == nil {
		t.Fatalf("no note in %q", got)
	}
	from, _ := strconv.Atoi(got[m[2]:m[3]])
	to, _ := strconv.Atoi(got[m[4]:m[5]])
	if off, _ := strconv.Atoi(got[m[6]:m[7]]); off != from {
		t.Errorf("since_offset %d, want the start of the gap %d", off, from)
	}
	head, tail := got[:m[0]], got[m[1]:]
	if from > 0 && raw[from-1] != '\n' {
		// A head cut inside a line gets a newline so the note stands alone.
		head = strings.TrimSuffix(head, "\n")
	}
	if head != string(raw[:from]) || tail != string(raw[to:]) {
		t.Errorf("shown text is not raw[:%d] + raw[%d:]:\nhead %q\ntail %q", from, to, head, tail)
	}
	if len(head)+len(tail) > limit {
		t.Errorf("shown %d bytes, limit %d", len(head)+len(tail), limit)
	}
	if len(tail) < len(head) {
		t.Errorf("the end should get the larger share: head %d, tail %d", len(head), len(tail))
	}
}

func TestShapeOutputCutsTheMiddleWhenAllIsAtHand(t *testing.T) {
	raw := numbered(2000) // ~20 KB: head and tail buffers overlap
	got := shapeOutput(windowOf(raw), 3000, "t7")
	checkCut(t, raw, got, 3000)
}

func TestShapeOutputCutsTheMiddleOfAHugeStream(t *testing.T) {
	raw := numbered(100000) // ~1 MB: only head and tail were kept
	w := windowOf(raw)
	if w.TailStart <= int64(len(w.Head)) {
		t.Fatal("test needs a stream larger than what is kept")
	}
	got := shapeOutput(w, 3000, "t7")
	checkCut(t, raw, got, 3000)
	if !strings.HasPrefix(got, "line 1\n") || !strings.HasSuffix(got, "line 100000\n") {
		t.Errorf("start or end missing")
	}
}

func TestShapeOutputCutsOneHugeLine(t *testing.T) {
	raw := bytes.Repeat([]byte("é"), 50000) // no newline at all, multibyte
	got := shapeOutput(windowOf(raw), 3000, "t7")
	checkCut(t, raw, got, 3000)
}

func TestShapeOutputLimitCountsPlainText(t *testing.T) {
	// Colour codes make the raw log three times the text; the text fits.
	raw := bytes.Repeat([]byte("\x1b[31mred\x1b[0m\n"), 500)
	got := shapeOutput(windowOf(raw), 3000, "t7")
	if strings.Contains(got, "left out") || strings.Count(got, "red\n") != 500 {
		t.Errorf("plain text under the limit was cut: %d bytes", len(got))
	}
}

func TestUnfinishedLineIsThePrompt(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"working\nOverwrite? [y/N] ", "Overwrite? [y/N]"},
		{"\x1b[1mPassword:\x1b[0m ", "Password:"},
		{"all done\n", ""},
		{"", ""},
	} {
		if got := UnfinishedLine(windowOf([]byte(tc.in))); got != tc.want {
			t.Errorf("unfinishedLine(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// vimLike is what an editor writes to show an empty file, cut down.
const vimLike = "\x1b[?1049h\x1b[?1h\x1b[H\x1b[2J\x1b[4;1H\"x.txt\" [New]\x1b[2;1H~\x1b[3;1H~\x1b[1;1H"

func TestShapeShowsAFullScreenProgramsLastFrame(t *testing.T) {
	got := Shape(windowOf([]byte("$ vi x.txt\n"+vimLike)), 3000, "t7", testCalls{})
	want := "$ vi x.txt\n" + ScreenNote + "\n~\n~\n\"x.txt\" [New]\n"
	if !got.Screen || got.Text != want || got.Omitted != nil {
		t.Errorf("Shape = %+v, want the frame %q", got, want)
	}
	if plain := Shape(windowOf(numbered(10)), 3000, "t7", testCalls{}); plain.Screen {
		t.Errorf("plain lines shown as a screen: %+v", plain)
	}
}

// Before a frame, the end of what came first is kept: the frame whole,
// the lines that started the program next to it, the rest marked.
func TestShapeKeepsTheFrameWholeAndCutsWhatCameBefore(t *testing.T) {
	raw := append(numbered(100000), vimLike...) // ~1 MB: only head and tail were kept
	w := windowOf(raw)
	got := Shape(w, 3000, "t7", testCalls{})
	if !got.Screen || !strings.HasSuffix(got.Text, ScreenNote+"\n~\n~\n\"x.txt\" [New]\n") {
		t.Fatalf("frame missing: %q", got.Text)
	}
	if got.Omitted == nil || got.Omitted.From != 0 || got.Omitted.To != w.TailStart {
		t.Errorf("omitted %+v, want the bytes before the tail played [0, %d)", got.Omitted, w.TailStart)
	}
	if !strings.Contains(got.Text, "line 100000\n"+ScreenNote) || !strings.Contains(got.Text, "earlier lines left out here; the whole output: LOGSFROM(t7, 0)") {
		t.Errorf("the lines before the frame are not cut at their start: %q", got.Text)
	}
	if len(got.Text) > 3000+300 {
		t.Errorf("%d bytes for a limit of 3000", len(got.Text))
	}
}
