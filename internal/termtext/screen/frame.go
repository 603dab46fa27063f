package screen

import (
	"errors"
	"strings"
)

// What a full-screen program drew, for a reader who was not watching: a
// tool result or a --json report. The program's stream is cursor moves
// around fragments of text; played on a screen, its last frame reads as
// rows of text, as a person at the terminal would have seen it.

// frameState follows full-screen programs while Frame plays a stream; the
// shell's screen has none (it hands such a program the real terminal).
type frameState struct {
	// start is the first line a full-screen program drew on (-1: none
	// yet); the lines above it are what came before the program.
	start int64
	// alt: the alternate screen is on; leaving it ends the program's
	// frame.
	alt bool
}

// Drawn is terminal output played on a screen.
type Drawn struct {
	// FullScreen says a full-screen program drew on the screen: the output
	// switched to the alternate screen or application cursor keys, or
	// positioned the cursor on rows after clearing the screen.
	FullScreen bool
	// Before is the text that came before the program started, one line
	// per row; Frame is the program's last frame (and whatever was
	// printed below it once it left), one row each. Trailing blanks of
	// each row are trimmed, as are empty rows at the end of Frame.
	Before, Frame []string
}

// Frame plays terminal output on a screen and returns what it shows. When
// no full-screen program drew, FullScreen is false and the rows are of no
// use (a plain rendering of the stream serves better).
func Frame(b []byte) Drawn {
	s := New(DefaultLines)
	s.fs = &frameState{start: -1}
	for len(b) > 0 {
		n, err := s.Write(b)
		b = b[n:]
		if err == nil {
			break
		}
		var full *FullScreenError
		if !errors.As(err, &full) {
			break
		}
		start := s.cy
		if full.AltScreen && !s.fs.alt {
			// The alternate screen starts blank.
			s.clear()
			s.fs.alt = true
			start = s.floor
		}
		if s.fs.start < 0 {
			s.fs.start = start
		}
	}
	if s.fs.start < 0 {
		return Drawn{}
	}
	d := Drawn{FullScreen: true}
	from := max(s.fs.start, s.base)
	for abs := s.base; abs < from; abs++ {
		d.Before = append(d.Before, s.rowText(abs))
	}
	for abs := max(s.floor, from); abs <= s.last(); abs++ {
		d.Frame = append(d.Frame, s.rowText(abs))
	}
	for len(d.Frame) > 0 && d.Frame[len(d.Frame)-1] == "" {
		d.Frame = d.Frame[:len(d.Frame)-1]
	}
	return d
}

// rowText is one line's characters with trailing blanks trimmed.
func (s *Screen) rowText(abs int64) string {
	ln := s.at(abs)
	var b strings.Builder
	for i, c := range ln.cells {
		if c.width == 0 {
			continue
		}
		b.WriteRune(c.r)
		if ln.marks != nil {
			b.WriteString(ln.marks[i])
		}
	}
	return strings.TrimRight(b.String(), " ")
}

// addressed notes a cursor placed on a row of a cleared page: a program
// drawing a screen without the alternate one.
func (s *Screen) addressed(row int) {
	if s.fs != nil && s.fs.start < 0 && row > 1 {
		s.fs.start = s.floor
	}
}

// leftFullScreen ends a full-screen program's frame: what follows is
// printed below it, as on the terminal it gave back.
func (s *Screen) leftFullScreen() {
	if s.fs == nil || !s.fs.alt {
		return
	}
	s.fs.alt = false
	s.cy = s.last()
	if len(s.at(s.cy).cells) > 0 {
		s.newline()
	}
	s.col = 0
	s.cleared = false
}
