package taskctl

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/hangdog/hangdog/internal/tailbuf"
	"github.com/hangdog/hangdog/internal/termtext"
	"github.com/hangdog/hangdog/internal/termtext/screen"
)

// What of a task's output a caller is shown, said once for every front end
// (an MCP result, `run --json`): its plain text whole when it fits; else its
// head and its tail with a note in the middle saying how many bytes were
// left out and how to read them, never the tail alone; and a full-screen
// program's output as the rows of its last frame, not as the cursor-moved
// fragments it wrote.

// The raw bytes kept of a run's start and end. They bound a caller's memory
// however much a command prints; the rest stays in the task's log.
const (
	HeadKeep = 64 << 10
	TailKeep = 128 << 10
)

// Window is the part of a task's raw output at hand: bytes
// [Base, Base+len(Head)) and [TailStart, Total) of the output. The two may
// overlap (then the whole output from Base is at hand).
type Window struct {
	Base      int64
	Head      []byte
	Tail      []byte
	TailStart int64
	Total     int64
}

// Capture keeps the start and the end of a stream and counts all of it. It
// is not safe for concurrent use.
type Capture struct {
	head []byte
	tail *tailbuf.Buffer
}

// NewCapture keeps HeadKeep bytes of the start and TailKeep of the end.
func NewCapture() *Capture { return &Capture{tail: tailbuf.New(TailKeep)} }

func (c *Capture) Write(p []byte) (int, error) {
	if room := HeadKeep - len(c.head); room > 0 {
		c.head = append(c.head, p[:min(room, len(p))]...)
	}
	return c.tail.Write(p)
}

// Window returns what was kept.
func (c *Capture) Window() Window {
	tail, dropped := c.tail.Bytes()
	return Window{Head: c.head, Tail: tail, TailStart: dropped, Total: c.tail.Total()}
}

// ReadWindow reads the first head and the last tail bytes of an output of
// size bytes (a task's log); HeadKeep and TailKeep are what Shape needs
// for a limit up to their size.
func ReadWindow(r io.ReaderAt, size, head, tail int64) (Window, error) {
	h, err := readAt(r, 0, min(size, head))
	if err != nil {
		return Window{}, err
	}
	tailStart := max(size-tail, 0)
	t, err := readAt(r, tailStart, size-tailStart)
	if err != nil {
		return Window{}, err
	}
	return Window{Head: h, Tail: t, TailStart: tailStart, Total: tailStart + int64(len(t))}, nil
}

func readAt(r io.ReaderAt, off, n int64) ([]byte, error) {
	buf := make([]byte, n)
	got, err := r.ReadAt(buf, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return buf[:got], nil
}

// ByteRange is a part of a task's output, [From, To).
type ByteRange struct {
	From int64 `json:"from" jsonschema:"first byte offset left out"`
	To   int64 `json:"to" jsonschema:"byte offset where the shown output resumes"`
}

// Shown is what a caller is shown of an output.
type Shown struct {
	Text string
	// Omitted is the bytes of the output left out of Text (nil: none).
	Omitted *ByteRange
	// Screen says Text ends with the last frame a full-screen program
	// drew (an editor, a pager, top), one row of the screen a line.
	Screen bool
}

// Shape renders raw terminal output as plain text of at most about limit
// bytes. When it is longer, its first third and last two thirds are kept
// (the end usually says how a command went) and a note in the middle says
// how much was left out and how to read it with c. When a full-screen
// program drew the output's end, Text is that program's last frame instead,
// after a line that says so.
func Shape(w Window, limit int, id string, c Calls) Shown {
	if s, ok := shapeScreen(w, limit, id, c); ok {
		return s
	}
	head, tail, tailStart := w.Head, w.Tail, w.TailStart
	if n := tailStart - w.Base; n <= int64(len(head)) {
		// Head and tail overlap: the whole output is at hand.
		whole := append(head[:n:n], tail...)
		text := termtext.Plain(whole)
		if len(text) <= limit {
			return Shown{Text: text}
		}
		headText, headEnd := termtext.Head(whole, limit/3)
		tailText, tailFrom := termtext.Tail(whole[headEnd:], limit-len(headText))
		from, to := w.Base+int64(headEnd), w.Base+int64(headEnd+tailFrom)
		if from >= to {
			return Shown{Text: text}
		}
		return Shown{Text: headText + ensureNewline(headText) + OmittedNote(from, to, id, c) + tailText, Omitted: &ByteRange{from, to}}
	}
	if i := bytes.IndexByte(tail, '\n'); i >= 0 {
		// The tail starts mid-line; a line's end alone would mislead.
		tail, tailStart = tail[i+1:], tailStart+int64(i+1)
	}
	headText, headEnd := termtext.Head(head, limit/3)
	tailText, tailFrom := termtext.Tail(tail, limit-len(headText))
	from, to := w.Base+int64(headEnd), tailStart+int64(tailFrom)
	return Shown{Text: headText + ensureNewline(headText) + OmittedNote(from, to, id, c) + tailText, Omitted: &ByteRange{from, to}}
}

// ScreenNote is the line before a full-screen program's last frame.
const ScreenNote = "[a full-screen program drew the screen below; its last frame, row by row:]\n"

// shapeScreen shows the end of an output a full-screen program drew: the
// text before the program (its end, when it does not all fit) and the
// program's last frame whole. The window's tail holds the frame: a screen
// is far smaller than TailKeep.
func shapeScreen(w Window, limit int, id string, c Calls) (Shown, bool) {
	raw, start := w.Tail, w.TailStart
	if n := w.TailStart - w.Base; n <= int64(len(w.Head)) {
		raw, start = append(w.Head[:n:n], w.Tail...), w.Base
	}
	if bytes.IndexByte(raw, 0x1b) < 0 {
		return Shown{}, false // no escape sequence: nothing drew a screen
	}
	d := screen.Frame(raw)
	if !d.FullScreen {
		return Shown{}, false
	}
	frame := ScreenNote + strings.Join(d.Frame, "\n") + "\n"
	before := strings.Join(d.Before, "\n")
	if before != "" {
		before += "\n"
	}
	var sb strings.Builder
	var omitted *ByteRange
	if start > w.Base {
		// Only the tail was played: the bytes before it are not shown.
		omitted = &ByteRange{w.Base, start}
		sb.WriteString(OmittedNote(w.Base, start, id, c))
	}
	if budget := max(limit-len(frame), 0); len(before) > budget {
		// The end of what came before, next to the frame, says what
		// started the program; the rest is left out.
		kept := lastLinesWithin(before, budget)
		fmt.Fprintf(&sb, "[… %d earlier lines left out here; the whole output: %s …]\n",
			strings.Count(before, "\n")-strings.Count(kept, "\n"), c.LogsFrom(id, w.Base))
		before = kept
	}
	sb.WriteString(before)
	sb.WriteString(frame)
	return Shown{Text: sb.String(), Omitted: omitted, Screen: true}, true
}

// lastLinesWithin is the last whole lines of text that fit in budget bytes.
func lastLinesWithin(text string, budget int) string {
	if len(text) <= budget {
		return text
	}
	cut := len(text) - budget
	if cut > 0 && text[cut-1] == '\n' {
		return text[cut:]
	}
	i := strings.IndexByte(text[cut:], '\n')
	if i < 0 {
		return ""
	}
	return text[cut+i+1:]
}

func ensureNewline(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return ""
	}
	return "\n"
}

// OmittedNote is the line that marks where an output was cut: how much was
// left out, which bytes of the task's log they are, and how to read them.
func OmittedNote(from, to int64, id string, c Calls) string {
	return fmt.Sprintf("[… %s of output left out here (bytes %d-%d of the task's log); read it with %s …]\n",
		humanBytes(to-from), from, to, c.LogsFrom(id, from))
}

func humanBytes(n int64) string {
	switch {
	case n >= 10<<20:
		return fmt.Sprintf("%d MB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 10<<10:
		return fmt.Sprintf("%d KB", n>>10)
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// UnfinishedLine is the output's last line when it has no newline yet (a
// prompt waiting for an answer looks like that), as plain text; else "".
// A full-screen program leaves its cursor anywhere: its output has no
// last line in that sense, so a caller asks only of output Shape did not
// show as a screen.
func UnfinishedLine(w Window) string {
	if len(w.Tail) == 0 || w.Tail[len(w.Tail)-1] == '\n' {
		return ""
	}
	start := bytes.LastIndexByte(w.Tail, '\n') + 1
	return strings.TrimSpace(termtext.Plain(w.Tail[start:]))
}

// FullScreenWait says a wait kind is a program drawing a screen, which
// no typed answer ends: an editor, a pager, a full-screen program.
func FullScreenWait(wait string) bool {
	switch wait {
	case WaitEditor, WaitPager, WaitScreen:
		return true
	}
	return false
}
