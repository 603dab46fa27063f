package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/internal/termtext"
	"github.com/hangdog/hangdog/tui/settingsview"
)

// slash runs one of the shell's own commands.
func (m *Model) slash(line string) tea.Cmd {
	name, rest := parseSlash(line)
	cmd, ok := findSlash(name)
	if !ok {
		m.setNotice(fmt.Sprintf("unknown command %s; /help lists them", clip(name, 30)), true)
		return nil
	}
	id, text, _ := strings.Cut(rest, " ")
	if cmd.takes == argTask && id == "" {
		m.setNotice("usage: "+cmd.name+" "+cmd.args, true)
		return nil
	}
	switch cmd.name {
	case "/bg-detach":
		reason := rest
		if reason == "" {
			reason = "detached with /bg-detach"
		}
		return m.detach(reason)
	case "/bg":
		return m.openTasks()
	case "/logs":
		return m.openLog(id, viewShell)
	case "/kill":
		return m.kill(id)
	case "/send":
		return m.send(id, strings.TrimSpace(text))
	case "/settings":
		m.settings = settingsview.New(settingsview.Options{Dir: m.cwd, UserFile: m.opts.UserFile})
		sm, _ := m.settings.Update(tea.WindowSizeMsg{Width: m.width, Height: m.height})
		m.settings = sm.(settingsview.Model)
		m.view = viewSettings
	case "/events":
		return m.listEvents()
	case "/watch", "/watchers":
		return m.openWatchers()
	case "/log":
		return m.openDebugLog()
	case "/clear":
		m.out.reset()
		m.scroll = 0
	case "/help":
		m.helpOpen = true
	case "/quit":
		return m.quit()
	}
	return nil
}

// helpBox is /help: the commands and keys, drawn over the output until a
// key is pressed, so reading it leaves nothing in the scrollback.
func (m *Model) helpBox() []string {
	lines := []string{styleTitle.Render("hangdog shell") + styleMuted.Render(" — commands run supervised; a stuck one can go to the background"), ""}
	for _, c := range slashCommands {
		lines = append(lines, fmt.Sprintf("%-22s %s", c.name+" "+c.args, styleMuted.Render(c.help)))
	}
	lines = append(lines, "")
	for _, k := range [][2]string{
		{"Ctrl+C", "interrupt the command (twice within a second: kill it)"},
		{"Ctrl+B", "move the running command, or a full-screen program, to the background"},
		{"Ctrl+D", "end of input for the command; on an empty prompt with nothing running: quit"},
		{"Ctrl+F", "search the output: ↑/Enter older match, ↓ newer, Esc back"},
		{"Ctrl+R", "search the history: Ctrl+R older, Enter takes it"},
		{"↑/↓, Tab", "history; complete a command, path, /command or task id"},
		{"PgUp/PgDn, wheel", "scroll the output; Home/End on an empty prompt: oldest/newest"},
	} {
		lines = append(lines, fmt.Sprintf("%-22s %s", k[0], styleMuted.Render(k[1])))
	}
	lines = append(lines, "", styleMuted.Render("while a command runs, a line not starting with / is typed into it · any key closes this"))
	return lines
}

// overlay draws box, framed, over the top rows, centred; the rows around
// it keep their output.
func overlay(rows, box []string, width int) []string {
	inner := 0
	for _, l := range box {
		inner = max(inner, frameWidth(l))
	}
	inner = min(inner, max(width-4, 1))
	pad := max((width-inner-4)/2, 0)
	out := append([]string(nil), rows...)
	framed := []string{"┌" + strings.Repeat("─", inner+2) + "┐"}
	for _, l := range box {
		l = clip(l, inner)
		framed = append(framed, "│ "+l+strings.Repeat(" ", max(inner-frameWidth(l), 0))+" │")
	}
	framed = append(framed, "└"+strings.Repeat("─", inner+2)+"┘")
	for i := 0; i < len(framed) && i < len(out); i++ {
		out[i] = strings.Repeat(" ", pad) + framed[i]
	}
	return out
}

// eventsShown is how many of the newest events /events lists.
const eventsShown = 50

type eventsMsg struct {
	events []bgtasks.Event
	err    error
}

// listEvents reads the home's event log, which every hangdog process
// appends to, so /events shows what happened before this shell started too.
func (m *Model) listEvents() tea.Cmd {
	reg := m.reg
	return func() tea.Msg {
		// The newest only: seqs go up by one, so this reads eventsShown
		// events whatever the log's length.
		last, err := reg.LastEventSeq()
		if err != nil {
			return eventsMsg{err: err}
		}
		evs, err := reg.Events(max(0, last-eventsShown))
		return eventsMsg{events: evs, err: err}
	}
}

func (m *Model) showEvents(msg eventsMsg) {
	if msg.err != nil {
		m.setNotice("events: "+msg.err.Error(), true)
		return
	}
	evs := msg.events
	if len(evs) > eventsShown {
		evs = evs[len(evs)-eventsShown:]
	}
	m.out.line(styleTitle.Render("events") + styleMuted.Render(fmt.Sprintf(" — the last %d", len(evs))))
	if len(evs) == 0 {
		m.out.line(styleMuted.Render("  none yet: a background task that ends, is detached or warns shows up here"))
	}
	for _, e := range evs {
		m.out.line(eventRow(e, m.width))
	}
}

// eventRowUnsized is the width /events fits its lines to before the shell
// knows the terminal's.
const eventRowUnsized = 120

// eventRow is one /events line fitted to width columns: the time, what happened with its reason, then the command in what
// room is left, so no line runs past the terminal's edge and wraps.
func eventRow(e bgtasks.Event, width int) string {
	when := e.Time.Local().Format("15:04:05") + "  "
	if width <= 0 {
		width = eventRowUnsized
	}
	room := max(width-frameWidth(when), 1)
	switch e.Kind {
	case bgtasks.EventExited, bgtasks.EventKilled, bgtasks.EventLost:
		text, bad := eventText(e)
		style := styleOK
		if bad {
			style = styleBad
		}
		return styleMuted.Render(when) + style.Render(clip(text, room))
	}
	text := termtext.OneLine(e.TaskID + " " + e.Kind)
	if e.Reason != "" {
		text += ": " + termtext.OneLine(e.Reason)
	}
	text = clip(text, room)
	line := styleMuted.Render(when) + styleWarn.Render(text)
	// The command only where at least a few of its columns fit.
	const minCommand = 8
	if left := room - frameWidth(text) - 2; left >= minCommand {
		if c := termtext.OneLine(e.Command); c != "" {
			line += styleMuted.Render("  " + clip(c, left))
		}
	}
	return line
}
