package watchdog

import "github.com/hangdog/hangdog/jev"

// redrawnLine is the unfinished last line as the previous due check saw it,
// to tell a line redrawn with news (a bar or a percent advancing) from one
// that only turns a spinner or counts the seconds (issue 23, cause 2: output
// is progress only when it says something new; jev.RestateShape).
type redrawnLine struct {
	shape string
	nums  []float64
	ok    bool
}

// same reports whether line says what the previous due check's last line
// said: the same shape, and no number of work grown.
func (r redrawnLine) same(line string) bool {
	if !r.ok || line == "" {
		return false
	}
	return jev.RestateShape(line) == r.shape && !jev.Advances(r.nums, jev.WorkNumbers(line))
}

func (r *redrawnLine) remember(line string) {
	*r = redrawnLine{shape: jev.RestateShape(line), nums: jev.WorkNumbers(line), ok: line != ""}
}
