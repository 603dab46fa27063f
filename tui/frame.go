package tui

import "github.com/hangdog/hangdog/tui/internal/frame"

// The shell's names for the frame package's measures.
var (
	fitFrame   = frame.Fit
	fitLine    = frame.Line
	frameWidth = frame.Width
)
