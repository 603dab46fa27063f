package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/hangdog/hangdog/internal/termtext"
	"github.com/hangdog/hangdog/internal/termtext/screen"
)

// find is scrollback search (Ctrl+F): the query is typed on the input line,
// the view jumps to the newest match, ↑/Enter go to older ones and ↓ to
// newer ones, every match on screen is highlighted and the current one
// stands out. Esc goes back to the prompt and the bottom of the output.
type find struct {
	input textinput.Model
	match screen.Match
	found bool
	total int
}

// histFind is Ctrl+R: the newest history entry containing the query, older
// ones with Ctrl+R again; Enter puts it on the prompt to edit or run.
type histFind struct {
	input textinput.Model
	pos   int // index in the history of the entry shown; -1 = none
}

func newQueryInput(prompt string) textinput.Model {
	in := textinput.New()
	in.Prompt = prompt
	in.PlaceholderStyle = styleMuted
	in.Focus()
	return in
}

func (m *Model) openFind() {
	m.find = &find{input: newQueryInput(stylePrompt.Render("find: "))}
	m.find.input.Placeholder = "text in the output · ↑/Enter older · ↓ newer · Esc back"
	m.find.input.Width = max(m.width/2, 10)
}

// findKey handles a key while searching the scrollback.
func (m *Model) findKey(k tea.KeyMsg) tea.Cmd {
	f := m.find
	switch k.String() {
	case "esc":
		m.find = nil
		m.scroll = 0
		return nil
	case "ctrl+c":
		// Ctrl+C means the command, searching or not.
		m.find = nil
		m.scroll = 0
		return m.interrupt()
	case "enter", "up", "ctrl+p", "ctrl+f":
		m.findStep(true)
		return nil
	case "down", "ctrl+n":
		m.findStep(false)
		return nil
	case "pgup", "pgdown", "home", "end":
		return m.scrollKey(k.String())
	}
	before := f.input.Value()
	var cmd tea.Cmd
	f.input, cmd = f.input.Update(k)
	if f.input.Value() != before {
		// A new query starts again from the newest line.
		f.found = false
		m.findStep(true)
	}
	return cmd
}

// findStep moves to the next match, older (backward) or newer.
func (m *Model) findStep(backward bool) {
	f := m.find
	from := screen.Match{Line: -1}
	if f.found {
		from = f.match
	}
	match, ok, total := m.out.search(f.input.Value(), from, backward)
	f.match, f.found, f.total = match, ok, total
	if ok {
		m.scroll = m.out.scrollFor(match.Line, max(m.width, 1), m.scrollbackHeight())
	}
}

// findLine is the input line while searching.
func (m *Model) findLine() string {
	f := m.find
	status := ""
	switch q := f.input.Value(); {
	case q == "":
	case f.total == 0:
		status = styleBad.Render("  no match")
	default:
		status = styleMuted.Render(fmt.Sprintf("  %d matching line(s) · ↑ older · ↓ newer · Esc back", f.total))
	}
	return f.input.View() + status
}

func (m *Model) openHistFind() {
	m.hfind = &histFind{input: newQueryInput(stylePrompt.Render("history: ")), pos: -1}
	m.hfind.input.Placeholder = "text in an earlier command · Ctrl+R older · Enter take · Esc back"
	m.hfind.input.Width = max(m.width/3, 10)
	m.hfind.input.SetValue(m.input.Value())
	m.hfind.input.CursorEnd()
	m.histStep(len(m.hist.entries))
}

// histFindKey handles a key while searching the history.
func (m *Model) histFindKey(k tea.KeyMsg) tea.Cmd {
	h := m.hfind
	switch k.String() {
	case "esc", "ctrl+c", "ctrl+g":
		m.hfind = nil
		return nil
	case "enter", "tab", "right":
		if h.pos >= 0 {
			m.input.SetValue(m.hist.entries[h.pos])
			m.input.CursorEnd()
		}
		m.hfind = nil
		return nil
	case "ctrl+r", "up":
		if h.pos > 0 {
			m.histStep(h.pos)
		}
		return nil
	}
	before := h.input.Value()
	var cmd tea.Cmd
	h.input, cmd = h.input.Update(k)
	if h.input.Value() != before {
		m.histStep(len(m.hist.entries))
	}
	return cmd
}

// histStep shows the newest entry before index `before` that contains the
// query, ignoring case; it keeps the current one when there is none.
func (m *Model) histStep(before int) {
	h := m.hfind
	q := strings.ToLower(h.input.Value())
	for i := before - 1; i >= 0; i-- {
		if strings.Contains(strings.ToLower(m.hist.entries[i]), q) {
			h.pos = i
			return
		}
	}
	if before == len(m.hist.entries) {
		h.pos = -1 // nothing matches the query at all
	}
}

// histFindLine is the input line while searching the history.
func (m *Model) histFindLine() string {
	h := m.hfind
	if h.pos < 0 {
		if h.input.Value() == "" {
			return h.input.View()
		}
		return h.input.View() + styleBad.Render("  no match")
	}
	return h.input.View() + styleMuted.Render(" → ") + styleCommand.Render(termtext.OneLine(m.hist.entries[h.pos]))
}
