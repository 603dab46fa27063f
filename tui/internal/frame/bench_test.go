package frame

import (
	"strings"
	"testing"
)

// BenchmarkFit250x60 is a full frame of coloured output at 250×60, what a
// flood redraws every frame.
func BenchmarkFit250x60(b *testing.B) {
	row := strings.Repeat("\x1b[0;32mok\x1b[0m build step 42 of 99 compiled module 7f3a ", 5)[:240]
	var lines []string
	for range 59 {
		lines = append(lines, row)
	}
	lines = append(lines, " idle │ bg: 0 running │ action: background   /help")
	view := strings.Join(lines, "\n")
	b.ResetTimer()
	for b.Loop() {
		Fit(view, 250, 60)
	}
}
