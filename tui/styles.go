package tui

import (
	"os"

	"github.com/charmbracelet/lipgloss"
)

// noColor is NO_COLOR as https://no-color.org defines it: set and not empty.
// lipgloss honours it for its own styles; the scrollback honours it here.
var noColor = os.Getenv("NO_COLOR") != ""

// Colours adapt to the terminal's background; under NO_COLOR lipgloss drops
// them and the bold/reverse/faint attributes still tell things apart.
var (
	colorAccent = lipgloss.AdaptiveColor{Light: "#1D4ED8", Dark: "#7AA2F7"}
	colorOK     = lipgloss.AdaptiveColor{Light: "#15803D", Dark: "#9ECE6A"}
	colorWarn   = lipgloss.AdaptiveColor{Light: "#B45309", Dark: "#E0AF68"}
	colorBad    = lipgloss.AdaptiveColor{Light: "#B91C1C", Dark: "#F7768E"}
	colorMuted  = lipgloss.AdaptiveColor{Light: "#6B7280", Dark: "#737AA2"}
	colorBarBg  = lipgloss.AdaptiveColor{Light: "#E5E7EB", Dark: "#24283B"}
	colorBarFg  = lipgloss.AdaptiveColor{Light: "#111827", Dark: "#C0CAF5"}
)

var (
	styleBar      = lipgloss.NewStyle().Background(colorBarBg).Foreground(colorBarFg).Reverse(noColor)
	styleBarKey   = styleBar.Bold(true)
	styleBarWatch = styleBar.Foreground(colorAccent).Bold(true)
	styleBarWarn  = styleBar.Foreground(colorWarn).Bold(true)
	styleBarBad   = styleBar.Foreground(colorBad).Bold(true)
	styleBarOK    = styleBar.Foreground(colorOK)
	styleBarDim   = styleBar.Foreground(colorMuted)

	stylePrompt    = lipgloss.NewStyle().Foreground(colorAccent).Bold(true)
	styleCommand   = lipgloss.NewStyle().Bold(true)
	styleMuted     = lipgloss.NewStyle().Foreground(colorMuted).Faint(noColor)
	styleOK        = lipgloss.NewStyle().Foreground(colorOK)
	styleWarn      = lipgloss.NewStyle().Foreground(colorWarn).Bold(true)
	styleBad       = lipgloss.NewStyle().Foreground(colorBad).Bold(true)
	styleTitle     = lipgloss.NewStyle().Foreground(colorAccent).Bold(true)
	styleSelected  = lipgloss.NewStyle().Reverse(true)
	styleHeaderRow = lipgloss.NewStyle().Bold(true).Underline(true)
)
