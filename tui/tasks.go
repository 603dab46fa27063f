package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/internal/keys"
	"github.com/hangdog/hangdog/internal/procusage"
	"github.com/hangdog/hangdog/internal/termtext"
	"github.com/hangdog/hangdog/internal/termtext/screen"
	"github.com/hangdog/hangdog/taskctl"
)

// maxStateWidth is where /bg cuts a task's state.
const maxStateWidth = 24

// taskStateText is a task's state in /bg: how it ended, in the shell's
// words, once it has.
func taskStateText(t *bgtasks.Task) string {
	if t.Result != nil && t.Result.State == bgtasks.Exited {
		return resultWords(t.Result)
	}
	return string(t.State())
}

// tasksView is /bg: the task list, with a log, a line to send, or a kill
// one key away.
type tasksView struct {
	tasks   []*bgtasks.Task
	usage   map[string]procusage.Usage // of the running ones, when listed
	sel     int
	err     string
	confirm string // id awaiting a kill confirmation
	status  string
	// opening: the next listing is the first since /bg was opened, and
	// selects focus (the task just moved to the background) or the top.
	opening bool
	focus   string
	// checks: the watchdog's last checks of the task they were read for
	// (checksOf), shown under the list so a detach, or none, explains
	// itself; read through bgtasks as `hangdog log --task` reads them.
	checks    []string
	checksOf  string
	checksErr string
}

// maxChecksRows is the most rows of /bg the selected task's checks take.
const maxChecksRows = 8

type tasksChecksMsg struct {
	id    string
	lines []string
	err   error
}

// readChecks reads the selected task's last checks off the UI goroutine.
func (v *tasksView) readChecks(reg *bgtasks.Registry) tea.Cmd {
	t := v.selected()
	if t == nil {
		return nil
	}
	id := t.ID
	return func() tea.Msg {
		lines, err := reg.ReadChecks(id)
		return tasksChecksMsg{id: id, lines: lines, err: err}
	}
}

func (v *tasksView) updateChecks(msg tasksChecksMsg) {
	if t := v.selected(); t == nil || t.ID != msg.id {
		return // read for a task selected before: its reads may land out of order
	}
	v.checksOf, v.checks, v.checksErr = msg.id, msg.lines, ""
	if msg.err != nil {
		v.checksErr = msg.err.Error()
	}
}

// checksPane is the selected task's last checks, newest at the bottom, each
// wrapped to width, as many of the newest as fit in rows; nil until they
// have been read for the selected task.
func (v *tasksView) checksPane(width, rows int) []string {
	t := v.selected()
	if t == nil || t.ID != v.checksOf || rows < 2 {
		return nil
	}
	// A proxied MCP server's calls in flight come first, one a line: the
	// checks below are its own task's (none: the proxy judges each call).
	var calls []string
	now := time.Now()
	for _, c := range t.Calls {
		if len(calls) == rows/2 {
			break
		}
		line := clip("mcp call in flight: "+taskctl.DescribeCall(c, now, taskctl.Compact), width)
		if c.Stuck {
			line = styleWarn.Render(line)
		}
		calls = append(calls, line)
	}
	rows -= len(calls)
	head := styleMuted.Render(clip("watchdog's last checks of "+t.ID+", newest last · hangdog log --task "+t.ID, width))
	var body []string
	switch {
	case v.checksErr != "":
		body = []string{styleBad.Render(clip(termtext.OneLine(v.checksErr), width))}
	case len(v.checks) == 0:
		body = []string{styleMuted.Render(clip(bgtasks.NoChecks, width))}
	}
	for i := len(v.checks) - 1; i >= 0 && len(body) < rows-1; i-- {
		wrapped := strings.Split(ansi.Hardwrap(termtext.OneLine(v.checks[i]), max(width, 10), true), "\n")
		if room := rows - 1 - len(body); len(wrapped) > room {
			if len(body) > 0 {
				break // an older check that does not fit whole is left out
			}
			wrapped = wrapped[:room]
		}
		body = append(wrapped, body...)
	}
	return append(append(calls, head), body...)
}

type tasksListMsg struct {
	tasks []*bgtasks.Task
	usage map[string]procusage.Usage
	err   error
}

// refresh lists the tasks and what the running ones cost, as `bg ls` does,
// off the UI goroutine: reading the process table takes milliseconds.
func (v *tasksView) refresh(reg *bgtasks.Registry) tea.Cmd {
	return func() tea.Msg {
		tasks, err := reg.List()
		if err != nil {
			return tasksListMsg{err: err}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return tasksListMsg{tasks: tasks, usage: taskctl.TreeUsage(ctx, tasks)}
	}
}

func (v *tasksView) update(msg tasksListMsg) {
	if msg.err != nil {
		v.err = msg.err.Error()
		return
	}
	keep := v.focus
	if !v.opening && v.sel < len(v.tasks) {
		keep = v.tasks[v.sel].ID
	}
	v.opening, v.focus = false, ""
	v.tasks, v.usage, v.err = msg.tasks, msg.usage, ""
	v.sel = 0
	for i, t := range v.tasks {
		if t.ID == keep {
			v.sel = i
		}
	}
}

func (v *tasksView) selected() *bgtasks.Task {
	if v.sel < len(v.tasks) {
		return v.tasks[v.sel]
	}
	return nil
}

func (v *tasksView) view(width, height int, bar string) string {
	var b strings.Builder
	b.WriteString(styleTitle.Render("background tasks") + styleMuted.Render("  ↑↓ select · enter log · s send a line · x kill · r refresh · esc back") + "\n")
	pane := v.checksPane(max(width-2, 10), min(maxChecksRows, max(height/3, 0)))
	rows := max(height-5-len(pane), 1)
	start := max(0, min(v.sel-rows/2, len(v.tasks)-rows))
	shown := v.tasks[start:min(len(v.tasks), start+rows)]
	// The STATE column is as wide as the widest state shown ("ended by
	// SIGSEGV"), up to a limit past which a state is cut: the columns after
	// it stay in line.
	states := make([]string, len(shown))
	stateWidth := len("STATE")
	for i, t := range shown {
		states[i] = clip(taskStateText(t), maxStateWidth)
		stateWidth = max(stateWidth, frameWidth(states[i]))
	}
	row := func(id, state, mode, age, cpu, mem, command string) string {
		return fmt.Sprintf("%-6s %s %-10s %-8s %-6s %-6s %s", id, state+strings.Repeat(" ", stateWidth-frameWidth(state)), mode, age, cpu, mem, command)
	}
	b.WriteString(styleHeaderRow.Render("  "+row("ID", "STATE", "MODE", "AGE", "CPU", "MEM", "COMMAND")) + "\n")
	now := time.Now()
	for i, t := range shown {
		cpu, mem := "-", "-"
		if u, ok := v.usage[t.ID]; ok {
			cpu, mem = taskctl.Compact.Format(u.CPU), procusage.BytesText(u.RSS)
		}
		// AGE is how long ago the task started, running or ended.
		line := row(t.ID, states[i], string(t.Mode), formatAge(max(now.Sub(t.Started), 0)), cpu, mem, taskctl.ListedCommand(t, now))
		line = clip(line, max(width-2, 10))
		if start+i == v.sel {
			b.WriteString(styleSelected.Render("▶ "+line) + "\n")
		} else {
			b.WriteString("  " + line + "\n")
		}
	}
	if len(v.tasks) == 0 {
		b.WriteString(styleMuted.Render("  no tasks yet; a command detached with Ctrl+B or /bg-detach shows up here") + "\n")
	}
	used := strings.Count(b.String(), "\n")
	for ; used < height-2-len(pane); used++ {
		b.WriteByte('\n')
	}
	for _, l := range pane {
		b.WriteString("  " + l + "\n")
	}
	switch {
	case v.err != "":
		b.WriteString(styleBad.Render(clip(termtext.OneLine(v.err), width)))
	case v.confirm != "":
		b.WriteString(styleWarn.Render("kill " + v.confirm + " and everything it started? y/n"))
	default:
		b.WriteString(styleMuted.Render(clip(termtext.OneLine(v.status), width)))
	}
	return b.String() + "\n" + bar
}

func (m *Model) openTasks() tea.Cmd {
	m.view = viewTasks
	m.bgNew = 0
	m.tasks.confirm, m.tasks.status = "", ""
	// Not where it was left: at the task just detached, else the top.
	m.tasks.opening, m.tasks.focus, m.tasks.sel = true, m.detached, 0
	m.detached = ""
	return m.tasks.refresh(m.reg)
}

func (m *Model) tasksKey(k tea.KeyMsg) tea.Cmd {
	v := &m.tasks
	if v.confirm != "" {
		id := v.confirm
		v.confirm = ""
		if keyName(k) == "y" {
			v.status = "killing " + id + "…"
			return m.kill(id)
		}
		return nil
	}
	switch keyName(k) {
	case "up", "k":
		v.sel = max(v.sel-1, 0)
		return v.readChecks(m.reg)
	case "down", "j":
		v.sel = min(v.sel+1, max(len(v.tasks)-1, 0))
		return v.readChecks(m.reg)
	case "enter", "l":
		if t := v.selected(); t != nil {
			return m.openLog(t.ID, viewTasks)
		}
	case "s":
		if t := v.selected(); t != nil {
			m.view = viewShell
			m.input.SetValue("/send " + t.ID + " ")
			m.input.CursorEnd()
		}
	case "x":
		if t := v.selected(); t != nil {
			v.confirm = t.ID
		}
	case "r":
		return v.refresh(m.reg)
	case "esc", "q", "ctrl+c":
		m.view = viewShell
	}
	return nil
}

// logView follows a file: a task's output or the debug log.
type logView struct {
	title   string
	taskID  string
	path    string
	scr     *screen.Screen
	offset  int64
	scroll  int
	state   string
	err     string
	back    viewKind
	gen     int  // which opening of the view a read belongs to
	confirm bool // x was pressed: kill once y confirms, as in /bg
}

type logChunkMsg struct {
	gen    int
	data   []byte
	offset int64
	state  string
	err    error
}

// logStart is how much of an existing log is shown when the view opens.
const logStart = 256 << 10

func (m *Model) openLog(id string, back viewKind) tea.Cmd {
	t, err := m.reg.Get(id)
	if err != nil {
		m.setNotice(err.Error(), true)
		return nil
	}
	m.logv = logView{title: id + " · " + termtext.OneLine(t.Command), taskID: id, path: t.OutputPath(), scr: screen.New(screen.DefaultLines),
		offset: -1, back: back, gen: m.logv.gen + 1}
	m.view = viewLog
	return m.logv.read(m.reg)
}

func (m *Model) openDebugLog() tea.Cmd {
	m.logv = logView{title: "debug log · " + m.opts.DebugLog, path: m.opts.DebugLog, scr: screen.New(screen.DefaultLines),
		offset: -1, back: viewShell, gen: m.logv.gen + 1}
	m.view = viewLog
	return m.logv.read(m.reg)
}

// read fetches what the file gained since the last read.
func (v *logView) read(reg *bgtasks.Registry) tea.Cmd {
	path, offset, gen, id := v.path, v.offset, v.gen, v.taskID
	return func() tea.Msg {
		msg := logChunkMsg{gen: gen, offset: offset}
		if id != "" {
			if t, err := reg.Get(id); err == nil {
				msg.state = string(t.State())
			}
		}
		f, err := os.Open(path)
		if err != nil {
			msg.err = err
			return msg
		}
		defer f.Close()
		if msg.offset < 0 {
			msg.offset = 0
			if st, err := f.Stat(); err == nil && st.Size() > logStart {
				msg.offset = st.Size() - logStart
			}
		}
		buf := make([]byte, 1<<20)
		n, err := f.ReadAt(buf, msg.offset)
		if err != nil && err != io.EOF {
			msg.err = err
		}
		msg.data = buf[:n]
		msg.offset += int64(n)
		return msg
	}
}

// logPoll is how often a followed log is read.
const logPoll = 250 * time.Millisecond

func (v *logView) update(msg logChunkMsg, reg *bgtasks.Registry) tea.Cmd {
	if msg.gen != v.gen {
		return nil // a read for a view since closed
	}
	v.offset = msg.offset
	if msg.state != "" {
		v.state = msg.state
	}
	v.err = ""
	if msg.err != nil {
		v.err = msg.err.Error()
		if os.IsNotExist(msg.err) && v.taskID == "" {
			v.err = "no debug log yet at " + v.path + "; set watchdog.debug to true (/settings) to record one line per check"
		}
	}
	for p := msg.data; len(p) > 0; {
		n, _ := v.scr.Write(p) // a full-screen program's output is shown as text here
		p = p[n:]
	}
	gen := v.gen
	return tea.Tick(logPoll, func(time.Time) tea.Msg { return logTickMsg{gen: gen} })
}

type logTickMsg struct{ gen int }

func (v *logView) view(width, height int, bar string) string {
	head := styleTitle.Render(clip(v.title, max(width-40, 10)))
	if v.state != "" {
		head += styleMuted.Render(" · " + v.state)
	}
	hint := " · esc back · PgUp/PgDn · Home/End"
	if v.taskID != "" {
		hint += " · s send · x kill"
	}
	head += styleMuted.Render(hint)
	rows, scroll := v.scr.Render(screen.RenderOptions{Width: max(width, 1), Height: max(height-3, 1), Scroll: v.scroll, NoColor: noColor})
	v.scroll = scroll
	foot := ""
	switch {
	case v.confirm:
		foot = styleWarn.Render("kill " + v.taskID + " and everything it started? y/n")
	case v.err != "":
		foot = styleBad.Render(clip(termtext.OneLine(v.err), width))
	}
	return head + "\n" + strings.Join(rows, "\n") + "\n" + foot + "\n" + bar
}

func (m *Model) logKey(k tea.KeyMsg) tea.Cmd {
	v := &m.logv
	page := max(m.height-4, 1)
	if v.confirm {
		// Any key but y keeps the task, as in /bg.
		v.confirm = false
		if keyName(k) == "y" {
			return m.kill(v.taskID)
		}
		return nil
	}
	switch keyName(k) {
	case "esc", "q", "ctrl+c":
		m.view = v.back
		v.gen++ // stop following
		if m.view == viewTasks {
			return m.tasks.refresh(m.reg)
		}
	case "pgup", "up", "k":
		step := 1
		if k.String() == "pgup" {
			step = page
		}
		v.scroll += step
	case "pgdown", "down", "j":
		step := 1
		if k.String() == "pgdown" {
			step = page
		}
		v.scroll = max(0, v.scroll-step)
	case "end", "G":
		v.scroll = 0
	case "home", "g":
		v.scroll = 1 << 30 // Render clamps it to the history it has
	case "s":
		if v.taskID != "" {
			m.view = viewShell
			m.input.SetValue("/send " + v.taskID + " ")
			m.input.CursorEnd()
		}
	case "x":
		if v.taskID != "" {
			v.confirm = true
		}
	}
	return nil
}

// kill stops a task from the shell (SIGTERM, then SIGKILL after 5 s).
func (m *Model) kill(id string) tea.Cmd {
	reg := m.reg
	// The kill's own notice says how the task ended; the end event that
	// follows must not replace it (both can land in one frame).
	m.own[id] = true
	return func() tea.Msg {
		k, err := taskctl.Kill(context.Background(), reg, id, taskctl.KillOptions{Signal: syscall.SIGTERM, Grace: 5 * time.Second, Reason: "killed from the hangdog shell"})
		var ended *taskctl.EndedError
		switch {
		case errors.As(err, &ended):
			return noticeMsg{text: id + " has already ended (" + string(ended.Task.State()) + ")", bad: true}
		case errors.Is(err, taskctl.ErrLostGone):
			return noticeMsg{text: id + " has already ended (" + string(bgtasks.Lost) + ")", bad: true}
		case err != nil:
			return noticeMsg{text: fmt.Sprintf("kill %s: %v", id, err), bad: true}
		case k.Lost:
			return noticeMsg{text: fmt.Sprintf("%s was lost; killed what was left of it: %s", id, k.LostRemains()), keep: true}
		}
		return noticeMsg{text: fmt.Sprintf("%s %s after %s", id, resultWords(&k.Result), taskctl.RoundDuration(k.Result.Ended.Sub(k.Task.Started))), keep: true}
	}
}

// send types text and Enter into a task's terminal.
func (m *Model) send(id, text string) tea.Cmd {
	reg := m.reg
	data, err := keys.Unescape(text)
	if err != nil {
		return func() tea.Msg { return noticeMsg{text: err.Error(), bad: true} }
	}
	data = append(data, '\r')
	return func() tea.Msg {
		t, err := reg.Get(id)
		if err != nil {
			return noticeMsg{text: err.Error(), bad: true}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := taskctl.SendInput(ctx, t, data); err != nil {
			return noticeMsg{text: fmt.Sprintf("send to %s: %v", id, err), bad: true}
		}
		return noticeMsg{text: fmt.Sprintf("sent %d bytes to %s", len(data), id)}
	}
}

func lipglossWidth(s string) int { return lipgloss.Width(s) }
