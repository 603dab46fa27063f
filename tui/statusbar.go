package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/hangdog/hangdog/internal/termtext"
)

// VerdictMsg is the watchdog's latest verdict on the running command. The
// shell makes one from each verdict its supervisor sends; another front end
// can send it to the program (Program.Send) too.
type VerdictMsg struct {
	TaskID     string
	Status     string  // progressing | waiting | stuck | looping
	Confidence float64 // 0..1
	Streak     int     // checks in a row that agreed
	Need       int     // agreeChecks: how many must agree before acting
}

// String is how the status bar says it. A person is at this terminal, so a
// command blocked reading it is waiting for them, not stuck.
func (v VerdictMsg) String() string {
	switch v.Status {
	case "":
		return "—"
	case "warning":
		return "warning"
	case "progressing":
		return "progressing"
	case "waiting":
		return "waiting for you"
	}
	s := fmt.Sprintf("%s %.2f", v.Status, v.Confidence)
	if v.Need > 0 {
		s += fmt.Sprintf(" (%d/%d)", v.Streak, v.Need)
	}
	return s
}

// watchdogState is the one place the status bar learns what the watchdog is
// doing: how many commands it watches (the running one, when its settings
// have it checked) and its latest verdict, from the supervisor's verdict
// events, a VerdictMsg or a warning; "—" before the first check.
func (m *Model) watchdogState() (watched int, verdict string) {
	if m.fg == nil {
		return 0, ""
	}
	if m.fg.watchdog.Enabled && m.fg.watchdog.WatchBash {
		watched = 1
	}
	return watched, m.verdict.String()
}

// statusBar renders the bottom line: watchdog, running command and its age,
// verdict, background tasks, action mode.
func (m *Model) statusBar(now time.Time) string {
	sep := styleBarDim.Render(" │ ")
	var parts []string
	watched, verdict := m.watchdogState()
	if watched > 0 {
		parts = append(parts, styleBarWatch.Render(fmt.Sprintf("watchdog: %d", watched)))
	}
	if m.fg != nil {
		age := now.Sub(m.fg.started)
		parts = append(parts, styleBarKey.Render("▶ "+clip(termtext.OneLine(m.fg.command), 28))+styleBar.Render(" · "+formatAge(age)))
		vs := styleBar
		switch {
		case strings.HasPrefix(verdict, "stuck"), strings.HasPrefix(verdict, "looping"):
			vs = styleBarBad
		case strings.HasPrefix(verdict, "waiting"), strings.HasPrefix(verdict, "warn"):
			vs = styleBarWarn
		case verdict == "progressing":
			vs = styleBarOK
		}
		parts = append(parts, vs.Render(verdict))
	} else {
		parts = append(parts, styleBarDim.Render("idle"))
	}
	bg := fmt.Sprintf("bg: %d running", m.bgRunning)
	if m.bgNew > 0 {
		parts = append(parts, styleBar.Render(bg+" · ")+styleBarWarn.Render(fmt.Sprintf("%d finished", m.bgNew)))
	} else {
		parts = append(parts, styleBar.Render(bg))
	}
	if m.settingsErr != "" {
		parts = append(parts, styleBarBad.Render("settings: error"))
	} else {
		parts = append(parts, styleBar.Render("action: "+m.action))
	}
	if m.scroll > 0 {
		parts = append(parts, styleBarWarn.Render(fmt.Sprintf("↑%d PgDn", m.scroll)))
	}
	left := strings.Join(parts, sep)
	right := styleBarDim.Render("/help ")
	gap := m.width - lipgloss.Width(left) - lipgloss.Width(right)
	if gap < 1 {
		return lipgloss.NewStyle().MaxWidth(m.width).Render(styleBar.Render(" ") + left)
	}
	return styleBar.Render(" ") + left + styleBar.Render(strings.Repeat(" ", max(gap-1, 0))) + right
}

func formatAge(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	default:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
}

// clip cuts s to at most n terminal columns (wide characters count two),
// ending a cut with "…".
func clip(s string, n int) string { return ansi.Truncate(s, max(n, 0), "…") }
