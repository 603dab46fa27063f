package mcpserver

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/hangdog/hangdog/internal/tailbuf"
	"github.com/hangdog/hangdog/internal/termtext"
)

// DefaultOutputLimit is how much plain text of a command's output goes into
// one tool result. Output costs the model context; past this the middle is
// left out, with a note saying how to read it.
const DefaultOutputLimit = 24 << 10

// The raw bytes kept of a run's start and end. They bound a call's memory
// however much a command prints; the rest stays in the task's output.log.
const (
	headKeep = 64 << 10
	tailKeep = 128 << 10
)

// capture keeps the start and the end of a stream and counts all of it.
type capture struct {
	head []byte
	tail *tailbuf.Buffer
}

func newCapture() *capture { return &capture{tail: tailbuf.New(tailKeep)} }

func (c *capture) Write(p []byte) {
	if room := headKeep - len(c.head); room > 0 {
		c.head = append(c.head, p[:min(room, len(p))]...)
	}
	c.tail.Write(p)
}

// window returns what was kept: the head, the tail and where the tail starts
// in the stream, and the stream's length.
func (c *capture) window() rawWindow {
	tail, dropped := c.tail.Bytes()
	return rawWindow{head: c.head, tail: tail, tailStart: dropped, total: c.tail.Total()}
}

// rawWindow is the part of a task's raw output at hand: bytes
// [base, base+len(head)) and [tailStart, total) of its output.log.
type rawWindow struct {
	base      int64
	head      []byte
	tail      []byte
	tailStart int64
	total     int64
}

// shapeOutput renders raw terminal output as plain text of at most about
// limit bytes. When it is longer, its first third and last two thirds are
// kept (the end usually says how a command went) and a note in the middle
// says how much was left out and how to read it with bg_logs.
func shapeOutput(w rawWindow, limit int, taskID string) string {
	text, _ := shapeOutputRange(w, limit, taskID)
	return text
}

// byteRange is a part of a task's output.log, [From, To).
type byteRange struct {
	From int64 `json:"from" jsonschema:"first byte offset left out"`
	To   int64 `json:"to" jsonschema:"byte offset where the shown output resumes"`
}

// shapeOutputRange is shapeOutput that also says which bytes of the log it
// left out (nil: none), for a harness to read them by offset.
func shapeOutputRange(w rawWindow, limit int, taskID string) (string, *byteRange) {
	head, tail, tailStart := w.head, w.tail, w.tailStart
	if n := tailStart - w.base; n <= int64(len(head)) {
		// Head and tail overlap: the whole output is at hand.
		whole := append(head[:n:n], tail...)
		text := termtext.Plain(whole)
		if len(text) <= limit {
			return text, nil
		}
		headText, headEnd := takeHead(whole, limit/3)
		tailText, tailFrom := takeTail(whole[headEnd:], limit-len(headText))
		from, to := w.base+int64(headEnd), w.base+int64(headEnd+tailFrom)
		if from >= to {
			return text, nil
		}
		return headText + ensureNewline(headText) + omittedNote(from, to, taskID) + tailText, &byteRange{from, to}
	}
	if i := bytes.IndexByte(tail, '\n'); i >= 0 {
		// The tail starts mid-line; a line's end alone would mislead.
		tail, tailStart = tail[i+1:], tailStart+int64(i+1)
	}
	headText, headEnd := takeHead(head, limit/3)
	tailText, tailFrom := takeTail(tail, limit-len(headText))
	from, to := w.base+int64(headEnd), tailStart+int64(tailFrom)
	return headText + ensureNewline(headText) + omittedNote(from, to, taskID) + tailText, &byteRange{from, to}
}

func ensureNewline(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return ""
	}
	return "\n"
}

func omittedNote(from, to int64, taskID string) string {
	return fmt.Sprintf("[… %s of output left out here (bytes %d-%d of the task's log); read it with bg_logs {\"id\": %q, \"since_offset\": %d} …]\n",
		humanBytes(to-from), from, to, taskID, from)
}

// takeHead converts whole lines from the start of raw to plain text while
// they fit in budget and returns the text and the raw offset it reached. A
// first line longer than the budget is cut inside, so something is shown.
func takeHead(raw []byte, budget int) (string, int) {
	var sb strings.Builder
	end := 0
	for end < len(raw) {
		n := bytes.IndexByte(raw[end:], '\n')
		if n < 0 {
			n = len(raw) - end
		} else {
			n++
		}
		line := termtext.Plain(raw[end : end+n])
		if sb.Len()+len(line) > budget {
			if sb.Len() == 0 {
				return cutLine(raw[end:end+n], budget)
			}
			break
		}
		sb.WriteString(line)
		end += n
	}
	return sb.String(), end
}

// takeTail is takeHead from the end: whole lines that fit in budget, and the
// raw offset where they start.
func takeTail(raw []byte, budget int) (string, int) {
	var lines []string
	size, start := 0, len(raw)
	for start > 0 {
		// The line ending at start (its own '\n' excluded from the search)
		// begins after the previous newline.
		i := bytes.LastIndexByte(raw[:start-1], '\n') + 1
		line := termtext.Plain(raw[i:start])
		if size+len(line) > budget {
			if size == 0 {
				text, from := cutLineEnd(raw[i:start], budget)
				return text, i + from
			}
			break
		}
		lines = append(lines, line)
		size += len(line)
		start = i
	}
	var sb strings.Builder
	sb.Grow(size)
	for i := len(lines) - 1; i >= 0; i-- {
		sb.WriteString(lines[i])
	}
	return sb.String(), start
}

// cutLine shows the start of one over-long line: about budget raw bytes,
// cut at a character boundary.
func cutLine(line []byte, budget int) (string, int) {
	n := min(max(budget, 1), len(line))
	for n > 0 && n < len(line) && !utf8.RuneStart(line[n]) {
		n--
	}
	return truncateText(termtext.Plain(line[:n]), budget), n
}

// cutLineEnd shows the end of one over-long line.
func cutLineEnd(line []byte, budget int) (string, int) {
	from := max(len(line)-max(budget, 1), 0)
	for from < len(line) && !utf8.RuneStart(line[from]) {
		from++
	}
	text := termtext.Plain(line[from:])
	if len(text) > budget {
		text = text[len(text)-budget:]
		for len(text) > 0 && !utf8.RuneStart(text[0]) {
			text = text[1:]
		}
	}
	return text, from
}

// truncateText cuts s to at most n bytes at a character boundary. Plain text
// can be a little longer than the raw bytes it came from (an invalid byte
// becomes U+FFFD), so a budget is enforced on the text too.
func truncateText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
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

// unfinishedLine is the output's last line when it has no newline yet (a
// prompt waiting for an answer looks like that), as plain text; else "".
func unfinishedLine(w rawWindow) string {
	if len(w.tail) == 0 || w.tail[len(w.tail)-1] == '\n' {
		return ""
	}
	start := bytes.LastIndexByte(w.tail, '\n') + 1
	return strings.TrimSpace(termtext.Plain(w.tail[start:]))
}
