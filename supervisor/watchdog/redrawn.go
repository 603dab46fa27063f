package watchdog

import (
	"github.com/hangdog/hangdog/jev"
	"github.com/hangdog/hangdog/supervisor/activity"
)

// redrawnLine is the unfinished last line as the previous due check saw it —
// or, in a window that began without one (the first: nothing was printed yet),
// as the window first saw it — to tell a line redrawn with news (a bar or a percent advancing) from one
// that only turns a spinner or counts the seconds (issue 23, cause 2: output
// is progress only when it says something new; jev.RestateShape).
type redrawnLine struct {
	shape string
	nums  []float64
	ok    bool
}

// same reports whether line says what the remembered line said: the same shape, and no number of work grown.
func (r redrawnLine) same(line string) bool {
	if !r.ok || line == "" {
		return false
	}
	return jev.RestateShape(line) == r.shape && !jev.Advances(r.nums, jev.WorkNumbers(line))
}

func (r *redrawnLine) remember(line string) {
	*r = redrawnLine{shape: jev.RestateShape(line), nums: jev.WorkNumbers(line), ok: line != ""}
}

// seeLine remembers the last line of snapshot s when the window began
// without one, so the first due check has a line earlier than its own to
// compare a redraw with: a spinner turning over a hang from the start is then
// a restatement at the first check, not only from the second.
func (w *Watch) seeLine(s activity.Stats) {
	if !w.redrawn.ok {
		w.redrawn.remember(s.LastLine)
	}
}
