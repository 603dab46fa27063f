package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/hangdog/hangdog/internal/termtext"
	"github.com/hangdog/hangdog/tui/internal/frame"
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

// barPart is one field of the status bar: its renderings from the fullest to
// the shortest, and how much it matters when the bar is too narrow.
type barPart struct {
	forms []string
	prio  int // higher stays longer
}

// statusBar renders the bottom line: watchdog, running command and its age,
// verdict, background tasks and the MCP calls in flight, action mode, and /help at the right. When the
// terminal is too narrow, the least important field shortens, then goes,
// whole, leaving "…"; a field is never cut mid-word and /help always stays.
func (m *Model) statusBar(now time.Time) string {
	var parts []barPart
	watched, verdict := m.watchdogState()
	if watched > 0 {
		parts = append(parts, barPart{prio: 1, forms: []string{styleBarWatch.Render(fmt.Sprintf("watchdog: %d", watched))}})
	}
	if m.fg != nil {
		age := formatAge(now.Sub(m.fg.started))
		cmd := termtext.OneLine(m.fg.command)
		forms := []string{styleBarKey.Render("▶ "+clipWords(cmd, 28)) + styleBar.Render(" · "+age)}
		if short := clipWords(cmd, 12); short != clipWords(cmd, 28) {
			forms = append(forms, styleBarKey.Render("▶ "+short)+styleBar.Render(" · "+age))
		}
		forms = append(forms, styleBarKey.Render("▶")+styleBar.Render(" "+age))
		parts = append(parts, barPart{prio: 5, forms: forms})
		vs := styleBar
		switch {
		case strings.HasPrefix(verdict, "stuck"), strings.HasPrefix(verdict, "looping"):
			vs = styleBarBad
		case strings.HasPrefix(verdict, "waiting"), strings.HasPrefix(verdict, "warn"):
			vs = styleBarWarn
		case verdict == "progressing":
			vs = styleBarOK
		}
		vforms := []string{vs.Render(verdict)}
		if f := strings.Fields(verdict); len(f) > 1 {
			vforms = append(vforms, vs.Render(f[0]))
		}
		parts = append(parts, barPart{prio: 6, forms: vforms})
	} else {
		parts = append(parts, barPart{prio: 6, forms: []string{styleBarDim.Render("idle")}})
	}
	bg := fmt.Sprintf("bg: %d running", m.bgRunning)
	if m.bgNew > 0 {
		parts = append(parts, barPart{prio: 3, forms: []string{
			styleBar.Render(bg+" · ") + styleBarWarn.Render(fmt.Sprintf("%d finished", m.bgNew)),
			styleBar.Render(fmt.Sprintf("bg: %d", m.bgRunning)) + styleBarWarn.Render(fmt.Sprintf(" +%d", m.bgNew)),
		}})
	} else {
		parts = append(parts, barPart{prio: 3, forms: []string{styleBar.Render(bg), styleBar.Render(fmt.Sprintf("bg: %d", m.bgRunning))}})
	}
	// Beside the tasks, as much as they matter: the MCP calls in flight on
	// the proxied servers among them, warned of once one is judged stuck.
	if c := m.calls; c.N > 0 {
		cs := styleBar
		if c.Stuck > 0 {
			cs = styleBarWarn
		}
		age := formatAge(c.Age(now))
		full := fmt.Sprintf("mcp: %s %s", c.Count(), age)
		if c.Stuck > 0 {
			full += fmt.Sprintf(" · %d stuck", c.Stuck)
		}
		parts = append(parts, barPart{prio: 3, forms: []string{
			cs.Render(full), cs.Render(fmt.Sprintf("mcp: %s %s", c.Count(), age)), cs.Render(fmt.Sprintf("mcp: %d %s", c.N, age)), cs.Render(fmt.Sprintf("mcp: %d", c.N))}})
	}
	if m.settingsErr != "" {
		parts = append(parts, barPart{prio: 4, forms: []string{styleBarBad.Render("settings: error")}})
	} else {
		parts = append(parts, barPart{prio: 2, forms: []string{styleBar.Render("action: " + m.action)}})
	}
	// After action (same priority, so action gives way first): how many
	// watchers stand, a number a person would otherwise forget.
	if m.watching > 0 {
		parts = append(parts, barPart{prio: 2, forms: []string{
			styleBar.Render(fmt.Sprintf("watch: %d active", m.watching)), styleBar.Render(fmt.Sprintf("watch: %d", m.watching))}})
	}
	if m.scroll > 0 {
		parts = append(parts, barPart{prio: 7, forms: []string{
			styleBarWarn.Render(fmt.Sprintf("↑%d PgDn", m.scroll)), styleBarWarn.Render(fmt.Sprintf("↑%d", m.scroll))}})
	}
	return layoutBar(parts, m.width)
}

// layoutBar fits the parts into width columns, one column short of it so
// that no terminal wraps the last row.
func layoutBar(parts []barPart, width int) string {
	sep := styleBarDim.Render(" │ ")
	more := styleBarDim.Render(" …")
	right := styleBarDim.Render("/help ")
	form := make([]int, len(parts)) // which rendering each part uses; -1 = dropped
	dropped := false
	room := width - 1
	for {
		var kept []string
		for i, p := range parts {
			if form[i] >= 0 {
				kept = append(kept, p.forms[form[i]])
			}
		}
		left := styleBar.Render(" ") + strings.Join(kept, sep)
		if dropped {
			left += more
		}
		gap := room - frameWidth(left) - frameWidth(right)
		if gap >= 1 || len(kept) == 0 {
			if gap < 1 {
				// Not even one field fits: /help alone, as much as fits.
				return styleBar.Render(fitLine(" "+ansi.Strip(right), max(room, 0)))
			}
			return left + styleBar.Render(strings.Repeat(" ", gap)) + right
		}
		// Shorten or drop the least important part that can give way.
		victim := -1
		for i, p := range parts {
			if form[i] >= 0 && (victim < 0 || p.prio < parts[victim].prio) {
				victim = i
			}
		}
		if form[victim] < len(parts[victim].forms)-1 {
			form[victim]++
		} else {
			form[victim] = -1
			dropped = true
		}
	}
}

// clipWords cuts s to at most n columns at a word boundary, ending a cut with
// "…"; a first word longer than n is cut inside it, as nothing else can show.
func clipWords(s string, n int) string {
	if frameWidth(s) <= n {
		return s
	}
	cut := clip(s, n)
	body := strings.TrimSuffix(cut, "…")
	if i := strings.LastIndexByte(body, ' '); i > 0 {
		return strings.TrimRight(body[:i], " ") + "…"
	}
	return cut
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

// clip cuts s to at most n terminal columns as fitLine counts them, ending a
// cut with "…".
func clip(s string, n int) string { return frame.Clip(s, n) }
