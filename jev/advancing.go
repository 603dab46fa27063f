package jev

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// numberRun and timeRun are compiled on first use: the supervisor links
// this package, and most commands end before a check.
var numberRun = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\d+(?:\.\d+)?`) })

// Principle (issue 23, cause 2): output is progress when it says something
// new — new lines, numbers that measure work done (bytes, items, percent)
// advancing. Text that differs from the last line only in times, elapsed
// counters or spinner frames restates a wait: a heartbeat stamped with the
// time, "still waiting (elapsed 28s)", a spinner turning over a hang.

// timeRun matches what only says what time it is or how long it has been:
// dates, clock times (with fractions and a zone), and numbers with a unit of
// time (28s, 1.5 ms, 2m30s, 3 seconds). They are blanked before numbers are
// compared, so a clock or an elapsed counter never reads as work advancing.
var timeRun = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d(?::\d\d)?(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?)?` +
		`|\d{1,2}:\d\d(?::\d\d)?(?:[.,]\d+)?` +
		`|\b\d+(?:\.\d+)?\s?(?:ms|us|µs|ns|s|sec|secs|seconds?|m|min|mins|minutes?|h|hrs?|hours?)\b(?:\s?\d+(?:\.\d+)?\s?(?:ms|s|sec|seconds?))?`)
})

// spinnerFrames are the characters spinners turn through, at a line's start.
const spinnerFrames = "|/-\\⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏⣾⣽⣻⢿⡿⣟⣯⣷◐◓◑◒◴◷◶◵●○◉·.•*+ \t"

// untimed is line with its times blanked and a leading spinner frame dropped.
func untimed(line string) string {
	return strings.TrimLeft(timeRun().ReplaceAllString(line, "T"), spinnerFrames)
}

// RestateShape is what a line says once its times, elapsed counters and
// spinner frame are blanked and its other numbers masked: two lines with
// the same shape say the same thing, unless a number of work advances.
func RestateShape(line string) string {
	return numberRun().ReplaceAllString(untimed(line), "#")
}

// WorkNumbers are the numbers of a line that may measure work done (not
// times): what advancing compares.
func WorkNumbers(line string) []float64 {
	var nums []float64
	for _, m := range numberRun().FindAllString(untimed(line), -1) {
		v, err := strconv.ParseFloat(m, 64)
		if err != nil {
			return nil
		}
		nums = append(nums, v)
	}
	return nums
}

// Advances reports whether some number of work grows from prev to cur,
// two lines of the same shape.
func Advances(prev, cur []float64) bool {
	for i := range min(len(prev), len(cur)) {
		if cur[i] > prev[i] {
			return true
		}
	}
	return false
}

// restating reports whether the new lines of a tail (its last n) only
// restate earlier ones: each has the shape of another line of the tail, and
// no number of work grows among the lines of that shape.
func restating(tail []string, n int) (string, bool) {
	if n <= 0 || len(tail) < 2 || errorish(tail) {
		return "", false
	}
	n = min(n, len(tail))
	counts := map[string]int{}
	for _, l := range tail {
		if strings.TrimSpace(l) != "" {
			counts[RestateShape(l)]++
		}
	}
	last := ""
	for _, l := range tail[len(tail)-n:] {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if counts[RestateShape(l)] < 2 {
			return "", false
		}
		last = l
	}
	if last == "" {
		return "", false
	}
	shape := RestateShape(last)
	var prev []float64
	for i, l := range tail {
		if RestateShape(l) != shape {
			continue
		}
		cur := WorkNumbers(l)
		if i > 0 && prev != nil && Advances(prev, cur) {
			return "", false
		}
		prev = cur
	}
	return last, true
}

// Advancing is advancingNumbers for the watchdog's progress veto: lines of
// one shape whose number of work keeps growing are progress, however much
// they repeat once masked.
func Advancing(tail []string) (string, bool) { return advancingNumbers(tail) }

// advancingNumbers reports whether repeated lines differ only in numbers of
// which one keeps growing — `icmp_seq=7`, `[12/100]`, `38.4 MB of 51.2 MB` —
// which is progress, not a loop. A counter on a failure being retried
// (`attempt 7: connection refused`) counts attempts, not progress.
func advancingNumbers(tail []string) (string, bool) {
	lines := tail[max(0, len(tail)-8):]
	if len(lines) < 3 || errorish(lines) {
		return "", false
	}
	last := lines[len(lines)-1]
	want := RestateShape(last)
	var rows [][]float64
	for _, l := range lines {
		if RestateShape(l) != want {
			continue
		}
		rows = append(rows, WorkNumbers(l))
	}
	if len(rows) < 3 {
		return "", false
	}
	for col := range rows[0] {
		growing := true
		for i := 1; i < len(rows) && growing; i++ {
			growing = col < len(rows[i]) && rows[i][col] > rows[i-1][col]
		}
		if growing {
			return last, true
		}
	}
	return "", false
}
