package activity

import "time"

// Stats is what a command's output looked like at one Snapshot.
type Stats struct {
	TotalBytes int64 // every byte written so far
	NewBytes   int64 // since the previous Snapshot; a spinner's redraws count

	LastOutput  time.Time     // zero when nothing was written yet
	SinceOutput time.Duration // since the last output, or since NewTracker if none

	// LastLine is the unfinished last line as a terminal would show it:
	// escape sequences stripped, carriage-return redraws resolved, at most
	// 200 characters (the end kept, since a prompt ends there). It is ""
	// when the output ends with a newline.
	LastLine string
	// Tail holds the last 20 complete lines, plain text, each cut to 200
	// characters.
	Tail []string

	// NewLines counts newlines since the previous Snapshot: redrawing one
	// line with \r is output but no new line. NewDistinctLines counts the
	// different non-blank lines among them once masked (see Mask), read
	// from the last 64 KiB of output.
	NewLines, NewDistinctLines int

	// Repetition is the share (0..1) of the last 50 non-blank complete lines
	// whose masked form occurs more than once among them: near 1 for a retry
	// loop, near 0 for a build log.
	Repetition float64

	// Redrawing is true when the recent output moves the cursor up to redraw
	// earlier lines (docker pull, npm, cargo): such repeated lines are a
	// progress display, not a loop.
	Redrawing bool
}
