package activity

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestMask(t *testing.T) {
	cases := []struct{ in, want string }{
		{"Connection refused, retrying in 5s (attempt 3)", "Connection refused, retrying in # (attempt #)"},
		{"Connection refused, retrying in 10s (attempt 12)", "Connection refused, retrying in # (attempt #)"},
		{"took 1.5ms", "took #"},
		{"waited 2m30s", "waited #"},
		{"2024-01-02T03:04:05.123Z INFO ready", "#-#-#T#Z INFO ready"},
		{"[12:34:56] tick", "[#] tick"},
		{"listening on 10.0.0.1:8080", "listening on #"},
		{"commit 3f9a2c1d4e merged", "commit # merged"},
		{"request 123e4567-e89b-12d3-a456-426614174000 done", "request # done"},
		{"ptr 0x7ffd1234 freed", "ptr # freed"},
		{"downloaded 1,234,567 bytes", "downloaded # bytes"},
		{"version v1.2.3", "version v#"},
		{"processing file12.txt", "processing file#.txt"},
		{"64k blocks, 3rd pass", "#k blocks, #rd pass"},
		{"deadbeef is a word", "deadbeef is a word"},
		{"  padded   columns\t here  ", "padded columns here"},
		{"", ""},
		{"no numbers at all.", "no numbers at all."},
	}
	for _, tc := range cases {
		if got := Mask(tc.in); got != tc.want {
			t.Errorf("Mask(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func linesOf(format string, n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, format, i, i*7%13)
		b.WriteByte('\n')
	}
	return b.String()
}

func buildLog(n int) string {
	steps := []string{"Compiling %s v0.%d", "Checking %s (%d files)", "Linking %s into target/%d", "Running tests for %s: %d passed"}
	crates := []string{"serde", "tokio", "hyper", "rand", "regex", "clap", "anyhow", "tracing", "bytes", "futures", "mio", "log", "syn"}
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, steps[i%len(steps)], crates[i%len(crates)], i)
		b.WriteByte('\n')
	}
	return b.String()
}

func TestRepetition(t *testing.T) {
	cases := []struct {
		name     string
		output   string
		min, max float64
	}{
		{"retry loop", linesOf("Connection refused, retrying in %ds (attempt %d)", 30), 0.99, 1},
		{"retry loop between other lines", "starting\n" + linesOf("Connection refused, retrying in %ds (attempt %d)", 10) + "giving up? no\n", 0.8, 0.9},
		{"two-line cycle with timestamps", strings.Repeat("[12:00:01] polling queue\n[12:00:02] queue empty, sleeping 2s\n", 20), 0.99, 1},
		{"build log of distinct lines", buildLog(52), 0, 0.1},
		{"one line", "hello\n", 0, 0},
		{"blank lines do not count", "a\n\n\n\nb\n\n", 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := NewTracker()
			tr.Write([]byte(tc.output))
			st := tr.Snapshot(time.Now())
			if st.Repetition < tc.min || st.Repetition > tc.max {
				t.Errorf("Repetition = %.2f, want %.2f..%.2f", st.Repetition, tc.min, tc.max)
			}
		})
	}
}

func TestLastLine(t *testing.T) {
	cases := []struct {
		name   string
		writes []string
		want   string
	}{
		{"prompt", []string{"Copying files...\n", "Overwrite? [y/N] "}, "Overwrite? [y/N] "},
		{"prompt in colour", []string{"\x1b[1;33mOverwrite?\x1b[0m [y/N] "}, "Overwrite? [y/N] "},
		{"ends with newline", []string{"done\n"}, ""},
		{"spinner redrawn with carriage returns", []string{"⠋ Loading", "\r⠙ Loading", "\r⠹ Loading"}, "⠹ Loading"},
		{"progress bar erased and redrawn", []string{"[==   ] 40%", "\r\x1b[K[===  ] 60%"}, "[===  ] 60%"},
		{"escape sequence split across writes", []string{"abc\x1b[3", "1mdef\x1b", "[0m?"}, "abcdef?"},
		{"utf8 split across writes", []string{"caf\xc3", "\xa9 ? "}, "café ? "},
		{"crlf lines then prompt", []string{"one\r\ntwo\r\n", "Password: "}, "Password: "},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := NewTracker()
			for _, w := range tc.writes {
				tr.Write([]byte(w))
			}
			if got := tr.Snapshot(time.Now()).LastLine; got != tc.want {
				t.Errorf("LastLine = %q, want %q", got, tc.want)
			}
		})
	}
}

// A snapshot taken in the middle of an escape sequence must not show its
// bytes, and the text after it must join the line once it completes.
func TestSnapshotInsideAnEscapeSequence(t *testing.T) {
	tr := NewTracker()
	tr.Write([]byte("abc\x1b[3"))
	if got := tr.Snapshot(time.Now()).LastLine; got != "abc" {
		t.Errorf("mid-sequence LastLine = %q, want %q", got, "abc")
	}
	tr.Write([]byte("1mdef"))
	if got := tr.Snapshot(time.Now()).LastLine; got != "abcdef" {
		t.Errorf("after the sequence LastLine = %q, want %q", got, "abcdef")
	}
}

func TestSpinnerIsOutputButNoNewLines(t *testing.T) {
	tr := NewTracker()
	tr.Write([]byte("building\n"))
	tr.Snapshot(time.Now())
	for i := 0; i < 100; i++ {
		tr.Write([]byte("\r" + string("|/-\\"[i%4]) + " working"))
	}
	st := tr.Snapshot(time.Now())
	if st.NewBytes != int64(100*len("\r| working")) || st.NewLines != 0 || st.NewDistinctLines != 0 {
		t.Errorf("spinner: NewBytes %d, NewLines %d, distinct %d; want %d bytes and no lines",
			st.NewBytes, st.NewLines, st.NewDistinctLines, 100*len("\r| working"))
	}
	if st.LastLine != "\\ working" || len(st.Tail) != 1 || st.Tail[0] != "building" {
		t.Errorf("LastLine %q, Tail %q", st.LastLine, st.Tail)
	}
}

func TestCountsAreSinceThePreviousSnapshot(t *testing.T) {
	tr := NewTracker()
	start := time.Now()
	st := tr.Snapshot(start.Add(time.Minute))
	if st.TotalBytes != 0 || !st.LastOutput.IsZero() || st.SinceOutput < time.Minute {
		t.Errorf("before any output: %+v", st)
	}
	tr.Write([]byte(linesOf("retry %d of %d", 5)))
	tr.Write([]byte("a\nb\na\n"))
	st = tr.Snapshot(time.Now())
	if st.NewLines != 8 || st.NewDistinctLines != 3 || st.TotalBytes != st.NewBytes || st.LastOutput.Before(start) {
		t.Errorf("first batch: NewLines %d (want 8), distinct %d (want 3: retry, a, b), %d of %d bytes new",
			st.NewLines, st.NewDistinctLines, st.NewBytes, st.TotalBytes)
	}
	total := st.TotalBytes
	tr.Write([]byte("c\n"))
	later := st.LastOutput.Add(time.Hour)
	st = tr.Snapshot(later)
	if st.NewLines != 1 || st.NewDistinctLines != 1 || st.NewBytes != 2 || st.TotalBytes != total+2 {
		t.Errorf("second batch: %+v", st)
	}
	if st.SinceOutput != later.Sub(st.LastOutput) {
		t.Errorf("SinceOutput %v, want %v", st.SinceOutput, later.Sub(st.LastOutput))
	}
	again := tr.Snapshot(later)
	if again.NewBytes != 0 || again.NewLines != 0 || again.NewDistinctLines != 0 ||
		strings.Join(again.Tail, "|") != strings.Join(st.Tail, "|") || again.Repetition != st.Repetition {
		t.Errorf("no output since: %+v\nprevious: %+v", again, st)
	}
}

func TestTailAfterTheWindowWrapped(t *testing.T) {
	tr := NewTracker()
	var all []string
	chunk := &bytes.Buffer{}
	for i := 0; i < 5000; i++ {
		line := fmt.Sprintf("line %05d %s", i, name(i))
		all = append(all, line)
		chunk.WriteString(line + "\n")
		if chunk.Len() > 3000 {
			tr.Write(chunk.Bytes())
			chunk.Reset()
		}
	}
	chunk.WriteString("\x1b[32mtail prompt> ")
	tr.Write(chunk.Bytes())
	st := tr.Snapshot(time.Now())
	want := all[len(all)-tailLines:]
	if strings.Join(st.Tail, "\n") != strings.Join(want, "\n") {
		t.Errorf("Tail = %q\nwant %q", st.Tail, want)
	}
	if st.LastLine != "tail prompt> " || st.NewLines != 5000 {
		t.Errorf("LastLine %q, NewLines %d", st.LastLine, st.NewLines)
	}
	// Only the window is read: 64 KiB of these lines, all distinct.
	if st.NewDistinctLines < 1000 || st.NewDistinctLines >= 5000 || st.Repetition != 0 {
		t.Errorf("distinct %d, repetition %.2f", st.NewDistinctLines, st.Repetition)
	}
}

// name spells i in letters, so masking does not make the lines alike.
func name(i int) string {
	b := []byte("word-")
	for {
		b = append(b, byte('a'+i%26))
		if i /= 26; i == 0 {
			return string(b)
		}
	}
}

func TestALineLongerThanTheWindow(t *testing.T) {
	tr := NewTracker()
	tr.Write([]byte("start\n"))
	for i := 0; i < 10000; i++ {
		tr.Write([]byte(fmt.Sprintf("\rdownloading… %3d%%", i%101)))
	}
	st := tr.Snapshot(time.Now())
	if st.LastLine != "downloading…   0%" {
		t.Errorf("LastLine = %q, want the last redraw", st.LastLine)
	}
	tr.Write([]byte(strings.Repeat("é", 3*windowSize/2)))
	st = tr.Snapshot(time.Now())
	if st.LastLine != "…"+strings.Repeat("é", maxLineRunes-1) {
		t.Errorf("an endless line: LastLine = %q", st.LastLine)
	}
}

func TestLinesAreCapped(t *testing.T) {
	tr := NewTracker()
	long := strings.Repeat("ab", maxLineRunes)
	tr.Write([]byte(long + "\n" + long))
	st := tr.Snapshot(time.Now())
	if st.Tail[0] != long[:maxLineRunes-1]+"…" || st.LastLine != "…"+long[len(long)-maxLineRunes+1:] {
		t.Errorf("Tail[0] %q, LastLine %q", st.Tail[0], st.LastLine)
	}
}

func TestRedrawingProgressIsFlagged(t *testing.T) {
	tr := NewTracker()
	for i := 0; i < 20; i++ {
		fmt.Fprintf(tr, "\x1b[2A\x1b[2Klayer a: %d%%\n\x1b[2Klayer b: %d%%\n", i*5, i*3)
	}
	st := tr.Snapshot(time.Now())
	if !st.Redrawing || st.Repetition < 0.9 {
		t.Errorf("docker-style progress: Redrawing %v, Repetition %.2f", st.Redrawing, st.Repetition)
	}
	tr.Write([]byte(buildLog(100)))
	if st := tr.Snapshot(time.Now()); st.Redrawing {
		t.Error("a plain log is flagged as redrawing")
	}
}

func TestWriteDoesNotAllocate(t *testing.T) {
	tr := NewTracker()
	chunk := mixedOutput(4096)
	if n := testing.AllocsPerRun(1000, func() { tr.Write(chunk) }); n != 0 {
		t.Errorf("Write allocates %.1f times per call", n)
	}
}

// One writer and several snapshotters at once: every byte is counted once,
// and the lines handed out are whole lines of the output.
func TestConcurrentSnapshots(t *testing.T) {
	tr := NewTracker()
	const writes = 2000
	line := []byte("the same line 12345\n")
	var wg sync.WaitGroup
	var mu sync.Mutex
	var newBytes, newLines int64
	done := make(chan struct{})
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				st := tr.Snapshot(time.Now())
				mu.Lock()
				newBytes += st.NewBytes
				newLines += int64(st.NewLines)
				mu.Unlock()
				for _, l := range st.Tail {
					if l != "the same line 12345" {
						t.Errorf("torn line %q", l)
					}
				}
				select {
				case <-done:
					return
				default:
				}
			}
		}()
	}
	for i := 0; i < writes; i++ {
		tr.Write(line)
	}
	close(done)
	wg.Wait()
	st := tr.Snapshot(time.Now())
	newBytes += st.NewBytes
	newLines += int64(st.NewLines)
	if newBytes != writes*int64(len(line)) || newLines != writes || st.TotalBytes != newBytes {
		t.Errorf("counted %d bytes and %d lines across snapshots, want %d and %d", newBytes, newLines, writes*len(line), writes)
	}
}
