package tui

import (
	"os"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// noColor is NO_COLOR as https://no-color.org defines it: set and not empty.
// lipgloss honours it for its own styles; the scrollback honours it here.
var noColor = os.Getenv("NO_COLOR") != ""

// Colours adapt to the terminal's background. Under NO_COLOR they are
// dropped here, not by lipgloss: lipgloss would drop bold, reverse and faint
// with them (its no-colour profile renders plain text), and those are what
// tell the status bar and hangdog's own lines from a command's output.
var (
	colorAccent = adaptive("#1D4ED8", "#7AA2F7")
	colorOK     = adaptive("#15803D", "#9ECE6A")
	colorWarn   = adaptive("#B45309", "#E0AF68")
	colorBad    = adaptive("#B91C1C", "#F7768E")
	colorMuted  = adaptive("#6B7280", "#737AA2")
	colorBarBg  = adaptive("#E5E7EB", "#24283B")
	colorBarFg  = adaptive("#111827", "#C0CAF5")
)

func init() {
	if noColor {
		// Attributes only: the colours above are already none.
		lipgloss.SetColorProfile(termenv.ANSI)
	}
}

func adaptive(light, dark string) lipgloss.TerminalColor {
	if noColor {
		return lipgloss.NoColor{}
	}
	return lipgloss.AdaptiveColor{Light: light, Dark: dark}
}

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
