package screen

import (
	"slices"
	"testing"
)

func TestFrameRendersWhatAFullScreenProgramDrew(t *testing.T) {
	tests := []struct {
		name         string
		in           string
		full         bool
		before, rows []string
	}{
		{
			name: "plain output is not full-screen",
			in:   "one\ntwo\x1b[31m red\x1b[0m\n",
		},
		{
			name: "progress redraws are not full-screen",
			in:   "50%\r\x1b[K100%\n\x1b[2K\x1b[1Gdone\n",
		},
		{
			// What vim writes to open an empty file, cut down: the
			// alternate screen, a clear, rows placed out of order.
			name: "an editor on the alternate screen",
			in: "$ vi x.txt\r\n\x1b[?1049h\x1b[?1h\x1b=\x1b[1;4r\x1b[H\x1b[2J\x1b[4;1H\"x.txt\" [New]\x1b[2;1H\x1b[1m\x1b[34m~   \x1b[3;1H~   " +
				"\x1b[m\x1b[4;40H0,0-1   All\x1b[1;1H\x1b[?25h",
			full:   true,
			before: []string{"$ vi x.txt"},
			rows:   []string{"", "~", "~", "\"x.txt\" [New]                          0,0-1   All"},
		},
		{
			name: "a second redraw replaces the first frame",
			in:   "\x1b[?1049h\x1b[H\x1b[2Jold frame\x1b[2;1Hold row\x1b[H\x1b[2Jnew frame",
			full: true,
			rows: []string{"new frame"},
		},
		{
			name:   "a pager that quit: its last frame, then what followed",
			in:     "before\n\x1b[?1049h\x1b[Hpage 1\x1b[2;1H(END)\x1b[?1049l\r$ next\n",
			full:   true,
			before: []string{"before"},
			rows:   []string{"page 1", "(END)", "$ next"},
		},
		{
			name: "cursor addressing on a cleared screen without the alternate one",
			in:   "\x1b[H\x1b[2Jtop - 10:00\x1b[3;1HPID USER\x1b[2;1Htasks: 3",
			full: true,
			rows: []string{"top - 10:00", "tasks: 3", "PID USER"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Frame([]byte(tt.in))
			if d.FullScreen != tt.full {
				t.Fatalf("FullScreen = %v, want %v", d.FullScreen, tt.full)
			}
			if !tt.full {
				return
			}
			if !slices.Equal(d.Before, tt.before) || !slices.Equal(d.Frame, tt.rows) {
				t.Errorf("before %q\nframe %q\nwant before %q\nframe %q", d.Before, d.Frame, tt.before, tt.rows)
			}
		})
	}
}

// The shell's screen is unchanged by what Frame adds: leaving an alternate
// screen it never entered moves nothing.
func TestLeavingTheAlternateScreenIsInertOutsideFrame(t *testing.T) {
	s := New(0)
	_, _ = s.Write([]byte("a\x1b[?1049lb\n"))
	if got := s.Text(); got != "ab\n" {
		t.Errorf("Text = %q, want %q", got, "ab\n")
	}
}
