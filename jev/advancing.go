package jev

import (
	"regexp"
	"strconv"
)

var numberRun = regexp.MustCompile(`\d+(?:\.\d+)?`)

// advancingNumbers reports whether repeated lines differ only in numbers of
// which one keeps growing — `icmp_seq=7`, `[12/100]`, `38.4 MB of 51.2 MB` —
// which is progress, not a loop. A counter on a failure being retried
// (`attempt 7: connection refused`) counts attempts, not progress.
func advancingNumbers(tail []string) (string, bool) {
	lines := tail[max(0, len(tail)-8):]
	if len(lines) < 3 || errorish(lines) {
		return "", false
	}
	shape := func(l string) string { return numberRun.ReplaceAllString(l, "#") }
	last := lines[len(lines)-1]
	want := shape(last)
	var rows [][]float64
	for _, l := range lines {
		if shape(l) != want {
			continue
		}
		var nums []float64
		for _, m := range numberRun.FindAllString(l, -1) {
			v, err := strconv.ParseFloat(m, 64)
			if err != nil {
				return "", false
			}
			nums = append(nums, v)
		}
		rows = append(rows, nums)
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
