package tui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/internal/termtext"
	"github.com/hangdog/hangdog/settings"
	"github.com/hangdog/hangdog/taskctl"
	"github.com/hangdog/hangdog/tui/screen"
	"github.com/hangdog/hangdog/tui/settingsview"
)

type viewKind int

const (
	viewShell viewKind = iota
	viewTasks
	viewLog
	viewSettings
)

// Model is the shell. Use it through Run, or hand it to a tea.Program (or
// teatest) and call Close when the program ends.
type Model struct {
	opts   Options
	reg    *bgtasks.Registry
	mail   *mailbox
	out    *scrollback
	input  textinput.Model
	hist   *history
	ctx    context.Context
	cancel context.CancelFunc

	width, height int
	sized         bool // a WindowSizeMsg has come
	scroll        int

	cwd         string
	fg          *foreground
	verdict     VerdictMsg
	action      string
	settingsErr string
	lastCtrlC   time.Time
	quitArmed   bool

	notice    string // one line above the prompt
	bgRunning int
	bgNew     int // background tasks that ended since /bg was last opened
	taskIDs   []string
	own       map[string]bool // ran here in the foreground and not detached

	view     viewKind
	tasks    tasksView
	logv     logView
	settings settingsview.Model

	quitting bool
}

// Messages the model sends itself.
type (
	tickMsg    time.Time
	bgStatsMsg struct {
		running int
		ids     []string
	}
	bgEventMsg struct{ ev bgtasks.Event }
	noticeMsg  struct {
		text string
		bad  bool
	}
)

// New builds a shell model; it starts nothing until the program runs it.
func New(opts Options) (*Model, error) {
	if err := opts.fill(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &Model{
		opts: opts, reg: opts.Registry, mail: newMailbox(), out: newScrollback(),
		ctx: ctx, cancel: cancel, cwd: opts.Dir, own: map[string]bool{},
		width: 80, height: 24,
	}
	hist, err := loadHistory(opts.HistoryFile)
	m.hist = hist
	if err != nil {
		m.notice = styleBad.Render(termtext.OneLine(err.Error()))
	}
	m.input = textinput.New()
	m.input.Cursor.SetMode(cursor.CursorStatic)
	// Ctrl+B detaches and Ctrl+D ends input; neither edits the line here.
	m.input.KeyMap.CharacterBackward = key.NewBinding(key.WithKeys("left"))
	m.input.KeyMap.AcceptSuggestion = key.NewBinding(key.WithDisabled())
	m.input.KeyMap.NextSuggestion = key.NewBinding(key.WithDisabled())
	m.input.KeyMap.PrevSuggestion = key.NewBinding(key.WithDisabled())
	m.input.Focus()
	m.loadSettings()
	m.setPrompt()
	return m, nil
}

// Close stops the shell's goroutines. A command still running in the
// foreground is stopped by its supervisor once the link closes: a
// foreground command belongs to its caller.
func (m *Model) Close() {
	m.cancel()
	m.mail.close()
	if m.fg != nil {
		m.fg.link.Close()
	}
}

func (m *Model) loadSettings() {
	st, err := settings.Load(settings.Options{Dir: m.cwd, UserFile: m.opts.UserFile})
	if err != nil {
		m.settingsErr = err.Error()
		m.action = ""
		return
	}
	m.settingsErr = ""
	m.action = st.Watchdog().Action
}

func (m *Model) setPrompt() {
	if m.fg != nil {
		m.input.Prompt = stylePrompt.Render("» ")
		m.input.Placeholder = "input for the command · /bg-detach or Ctrl+B to background it · Ctrl+C to interrupt"
		return
	}
	m.input.Prompt = styleMuted.Render(shortDir(m.cwd)) + stylePrompt.Render(" ❯ ")
	m.input.Placeholder = "a command, or /help"
}

func shortDir(dir string) string {
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		if dir == home {
			return "~"
		}
		if rel, ok := strings.CutPrefix(dir, home+"/"); ok {
			return "~/" + rel
		}
	}
	return dir
}

func (m *Model) Init() tea.Cmd {
	go m.followEvents()
	return tea.Batch(m.mail.next(time.Time{}), tick(), m.pollBackground())
}

func tick() tea.Cmd {
	return tea.Tick(time.Second, func(t time.Time) tea.Msg { return tickMsg(t) })
}

// followEvents turns ended background tasks into notices. It lives until
// the shell closes.
func (m *Model) followEvents() {
	var last int64
	if evs, err := m.reg.Events(0); err == nil && len(evs) > 0 {
		last = evs[len(evs)-1].Seq
	}
	m.reg.FollowEvents(m.ctx, last, func(e bgtasks.Event) error {
		m.mail.post(bgEventMsg{ev: e})
		return nil
	})
}

// pollBackground counts running background tasks for the status bar and
// keeps task ids for completion.
func (m *Model) pollBackground() tea.Cmd {
	reg := m.reg
	return func() tea.Msg {
		tasks, err := reg.List()
		if err != nil {
			return bgStatsMsg{running: -1}
		}
		var s bgStatsMsg
		for _, t := range tasks {
			s.ids = append(s.ids, t.ID)
			if t.Mode == bgtasks.Background && !t.State().Ended() {
				s.running++
			}
		}
		return s
	}
}

func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		resized := m.sized && (msg.Width != m.width || msg.Height != m.height)
		m.width, m.height, m.sized = msg.Width, msg.Height, true
		m.input.Width = max(m.width-lipglossWidth(m.input.Prompt)-1, 10)
		if m.fg != nil {
			m.fg.link.Resize(uint16(m.height), uint16(m.width))
		}
		sm, _ := m.settings.Update(msg)
		m.settings = sm.(settingsview.Model)
		if resized {
			// The terminal has cut or moved what was on it; the renderer
			// would otherwise skip rows it believes unchanged.
			return m, tea.ClearScreen
		}
		return m, nil
	case mailMsg:
		var cmds []tea.Cmd
		for _, inner := range msg.msgs {
			if c := m.handleMail(inner); c != nil {
				cmds = append(cmds, c)
			}
		}
		next := time.Time{}
		if msg.dirty {
			next = time.Now().Add(frameInterval)
		}
		return m, tea.Batch(append(cmds, m.mail.next(next))...)
	case tickMsg:
		cmds := []tea.Cmd{tick()}
		if time.Time(msg).Second()%2 == 0 {
			cmds = append(cmds, m.pollBackground())
		}
		if m.view == viewTasks {
			cmds = append(cmds, m.tasks.refresh(m.reg))
		}
		return m, tea.Batch(cmds...)
	case bgStatsMsg:
		if msg.running >= 0 {
			m.bgRunning, m.taskIDs = msg.running, msg.ids
		}
		return m, nil
	case VerdictMsg:
		m.setVerdict(msg)
		return m, nil
	case noticeMsg:
		m.setNotice(msg.text, msg.bad)
		return m, nil
	case fullscreenDoneMsg:
		return m, m.fullscreenDone(msg)
	case settingsview.ClosedMsg:
		m.view = viewShell
		m.loadSettings()
		if msg.Saved != "" {
			m.setNotice("settings saved to "+msg.Saved+"; the next command uses them", false)
		}
		return m, nil
	case tea.KeyMsg:
		switch m.view {
		case viewTasks:
			return m, m.tasksKey(msg)
		case viewLog:
			return m, m.logKey(msg)
		case viewSettings:
			sm, cmd := m.settings.Update(msg)
			m.settings = sm.(settingsview.Model)
			return m, cmd
		}
		return m, m.shellKey(msg)
	case tasksListMsg:
		m.tasks.update(msg)
		return m, nil
	case logChunkMsg:
		return m, m.logv.update(msg, m.reg)
	case logTickMsg:
		if m.view == viewLog && msg.gen == m.logv.gen {
			return m, m.logv.read(m.reg)
		}
		return m, nil
	}
	if m.view == viewShell {
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		return m, cmd
	}
	return m, nil
}

func (m *Model) handleMail(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case startedMsg:
	case warningMsg:
		if msg.fg == m.fg {
			m.verdict = VerdictMsg{Status: "warning"}
		}
		m.out.line(styleWarn.Render("hangdog: " + termtext.OneLine(msg.text)))
	case fullscreenMsg:
		x := &fullscreen{fg: msg.fg, reg: m.reg}
		return tea.Exec(x, func(err error) tea.Msg { return fullscreenDoneMsg{x: x, err: err} })
	case finishedMsg:
		m.finished(msg)
		return m.pollBackground()
	case bgEventMsg:
		m.backgroundEvent(msg.ev)
	case VerdictMsg:
		m.setVerdict(msg)
	}
	return nil
}

// setVerdict keeps the latest verdict on the running command for the
// status bar; one about another task is ignored.
func (m *Model) setVerdict(v VerdictMsg) {
	if m.fg != nil && (v.TaskID == "" || v.TaskID == m.fg.id) {
		m.verdict = v
	}
}

type fullscreenDoneMsg struct {
	x   *fullscreen
	err error
}

func (m *Model) fullscreenDone(msg fullscreenDoneMsg) tea.Cmd {
	if msg.err != nil {
		m.setNotice("full-screen hand-over: "+msg.err.Error(), true)
	}
	if msg.x.detached {
		m.setNotice(msg.x.fg.id+" is in the background; /logs "+msg.x.fg.id+" follows it", false)
	}
	if m.fg == msg.x.fg {
		m.fg.link.Resize(uint16(m.height), uint16(m.width))
	}
	return nil
}

// finished reports how the foreground command ended and gives the prompt back.
func (m *Model) finished(msg finishedMsg) {
	f := msg.fg
	elapsed := taskctl.RoundDuration(time.Since(f.started))
	switch {
	case msg.detach != nil:
		d := msg.detach
		delete(m.own, f.id)
		m.out.line(styleWarn.Render(fmt.Sprintf("⇥ %s moved to the background after %s: %s", d.TaskID,
			taskctl.RoundDuration(time.Duration(d.ElapsedMS)*time.Millisecond), termtext.OneLine(d.Reason))) +
			styleMuted.Render(fmt.Sprintf("  (/logs %s · /send %s TEXT · /kill %s)", d.TaskID, d.TaskID, d.TaskID)))
		m.setNotice(d.TaskID+" keeps running in the background", false)
	case msg.failure != "":
		m.out.line(styleBad.Render("could not start: " + termtext.OneLine(msg.failure)))
	case msg.lost != nil:
		m.out.line(styleBad.Render(fmt.Sprintf("%s: %v; its output is kept in %s", f.id, msg.lost, f.link.OutputPath())))
	case msg.result != nil:
		r := msg.result
		m.out.freshLine()
		switch {
		case r.State == bgtasks.Killed:
			m.out.line(styleBad.Render(fmt.Sprintf("✗ killed after %s: %s", elapsed, termtext.OneLine(r.Reason))))
		case r.Signal != "":
			m.out.line(styleBad.Render(fmt.Sprintf("✗ %s after %s", r.Signal, elapsed)))
		case r.ExitCode != 0:
			m.out.line(styleBad.Render(fmt.Sprintf("✗ exit %d", r.ExitCode)) + styleMuted.Render(" after "+elapsed.String()))
		}
	}
	if m.fg == f {
		m.fg = nil
		m.verdict = VerdictMsg{}
		m.quitArmed = false
		m.setPrompt()
	}
}

// backgroundEvent shows a one-line notice when a background task ends.
func (m *Model) backgroundEvent(e bgtasks.Event) {
	switch e.Kind {
	case bgtasks.EventExited, bgtasks.EventKilled, bgtasks.EventLost:
	default:
		return
	}
	if m.own[e.TaskID] {
		return // its end is already in the scrollback
	}
	m.bgNew++
	how := taskctl.DescribeEnd(taskctl.EventResult(e), taskctl.TerseWords{})
	text := fmt.Sprintf("%s %s after %s: %s", e.TaskID, how, taskctl.RoundDuration(time.Duration(e.DurationMS)*time.Millisecond), clip(termtext.OneLine(e.Command), 60))
	m.setNotice(text, e.Kind != bgtasks.EventExited || (e.ExitCode != nil && *e.ExitCode != 0))
}

func (m *Model) setNotice(text string, bad bool) {
	text = termtext.OneLine(text)
	if bad {
		m.notice = styleBad.Render(text)
	} else {
		m.notice = styleOK.Render(text)
	}
}

// keyName names a key for a switch. Typed text arrives in chunks whose
// String() is the text itself, so a chunk "up" must not read as the Up key:
// only a single typed character gets a name of its own.
func keyName(k tea.KeyMsg) string {
	if k.Type == tea.KeyRunes {
		if len(k.Runes) == 1 && !k.Paste {
			return string(k.Runes)
		}
		return ""
	}
	return k.String()
}

// shellKey handles a key on the shell's own screen.
func (m *Model) shellKey(k tea.KeyMsg) tea.Cmd {
	if k.Type == tea.KeyRunes || k.Type == tea.KeySpace {
		// Typed text, even the word "up" arriving as one chunk, is text.
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(k)
		return cmd
	}
	switch k.String() {
	case "enter":
		line := m.input.Value()
		m.input.SetValue("")
		m.scroll = 0
		return m.submit(line)
	case "ctrl+c":
		return m.interrupt()
	case "ctrl+d":
		if m.input.Value() != "" {
			break
		}
		if m.fg != nil {
			m.fg.link.Input([]byte{0x04}) // end of input for the command
			return nil
		}
		return m.quit()
	case "ctrl+b":
		return m.detach("detached with Ctrl+B")
	case "ctrl+l":
		m.out.reset()
		m.scroll = 0
		return nil
	case "tab":
		line, candidates := complete(m.input.Value(), m.taskIDs)
		m.input.SetValue(line)
		m.input.CursorEnd()
		if len(candidates) > 0 {
			m.notice = styleMuted.Render(strings.Join(candidates, "  "))
		}
		return nil
	case "up":
		if s, ok := m.hist.prev(m.input.Value()); ok {
			m.input.SetValue(s)
			m.input.CursorEnd()
		}
		return nil
	case "down":
		if s, ok := m.hist.next(); ok {
			m.input.SetValue(s)
			m.input.CursorEnd()
		}
		return nil
	case "pgup":
		m.scroll += max(m.scrollbackHeight()-1, 1)
		return nil
	case "pgdown":
		m.scroll = max(0, m.scroll-max(m.scrollbackHeight()-1, 1))
		return nil
	case "esc":
		m.scroll = 0
		m.notice = ""
		return nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	return cmd
}

// submit acts on an entered line: a slash command, input for the running
// command, or a new command.
func (m *Model) submit(line string) tea.Cmd {
	trimmed := strings.TrimSpace(line)
	if strings.HasPrefix(trimmed, "/") {
		m.saveHistory(trimmed)
		return m.slash(trimmed)
	}
	if m.fg != nil {
		// Enter on a terminal sends a carriage return; the command's
		// terminal echoes the line if it echoes at all.
		m.fg.link.Input([]byte(line + "\r"))
		return nil
	}
	if trimmed == "" {
		return nil
	}
	m.saveHistory(trimmed)
	switch {
	case trimmed == "exit" || trimmed == "logout":
		return m.quit()
	case trimmed == "cd" || strings.HasPrefix(trimmed, "cd "):
		m.changeDir(strings.TrimSpace(strings.TrimPrefix(trimmed, "cd")))
		return nil
	}
	return m.start(trimmed)
}

func (m *Model) saveHistory(line string) {
	if err := m.hist.add(line); err != nil {
		m.setNotice(err.Error(), true)
	}
}

// changeDir is the one builtin: a command runs in a process of its own, so
// only the shell can change where the next one runs.
func (m *Model) changeDir(arg string) {
	target := arg
	home, _ := os.UserHomeDir()
	switch {
	case arg == "" || arg == "~":
		target = home
	case strings.HasPrefix(arg, "~/"):
		target = filepath.Join(home, arg[2:])
	case !filepath.IsAbs(arg):
		target = filepath.Join(m.cwd, arg)
	}
	if st, err := os.Stat(target); err != nil || !st.IsDir() {
		m.setNotice("cd: "+arg+": no such directory", true)
		return
	}
	m.cwd = filepath.Clean(target)
	m.loadSettings()
	m.setPrompt()
}

// start runs a command as a supervised, interactive foreground task.
func (m *Model) start(command string) tea.Cmd {
	m.notice = ""
	m.out.line(styleMuted.Render(shortDir(m.cwd)) + stylePrompt.Render(" ❯ ") + styleCommand.Render(termtext.OneLine(command)))
	// The settings in force for the directory right now, so an edit in the
	// settings screen applies to the next command.
	spec, err := taskctl.Resolve(taskctl.Request{
		Command: command, Cwd: m.cwd, Mode: bgtasks.Foreground, UserFile: m.opts.UserFile,
		Interactive: true, Rows: uint16(m.height), Cols: uint16(m.width),
	})
	if err != nil {
		m.settingsErr = err.Error()
		m.out.line(styleBad.Render("not started: " + termtext.OneLine(err.Error())))
		return nil
	}
	f, err := startForeground(m.reg, spec, m.out, m.mail)
	if err != nil {
		m.out.line(styleBad.Render("not started: " + termtext.OneLine(err.Error())))
		return nil
	}
	m.settingsErr = ""
	m.action = spec.Watchdog.Action
	m.fg = f
	m.own[f.id] = true
	m.verdict = VerdictMsg{}
	m.setPrompt()
	return nil
}

// interrupt is Ctrl+C: SIGINT for the command's foreground process group
// (through its terminal, as a keyboard does), SIGKILL for the whole task if
// pressed again within a second. With nothing running it clears the line.
func (m *Model) interrupt() tea.Cmd {
	if m.fg == nil {
		if m.input.Value() == "" {
			m.setNotice("Ctrl+D or /quit leaves the shell", false)
		}
		m.input.SetValue("")
		return nil
	}
	now := time.Now()
	if now.Sub(m.lastCtrlC) < time.Second {
		m.fg.link.Stop(syscall.SIGKILL)
		m.setNotice("killing "+m.fg.id, true)
		return nil
	}
	m.lastCtrlC = now
	m.fg.link.Input([]byte{0x03})
	return nil
}

// detach moves the running command to the background; the link's detached
// event then gives the prompt back.
func (m *Model) detach(reason string) tea.Cmd {
	if m.fg == nil {
		m.setNotice("nothing is running in the foreground here", true)
		return nil
	}
	reg, id := m.reg, m.fg.id
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := detachTask(ctx, reg, id, reason); err != nil {
			return noticeMsg{text: err.Error(), bad: true}
		}
		return nil
	}
}

func (m *Model) quit() tea.Cmd {
	if m.fg != nil && !m.quitArmed {
		m.quitArmed = true
		m.setNotice(m.fg.id+" is still running: /quit again stops it, /bg-detach keeps it", true)
		return nil
	}
	m.quitting = true
	m.Close()
	return tea.Quit
}

func (m *Model) scrollbackHeight() int {
	h := m.height - 2
	if m.notice != "" {
		h--
	}
	return max(h, 1)
}

func (m *Model) View() string {
	if m.quitting {
		return ""
	}
	switch m.view {
	case viewTasks:
		return m.tasks.view(m.width, m.height, m.statusBar(time.Now()))
	case viewLog:
		return m.logv.view(m.width, m.height, m.statusBar(time.Now()))
	case viewSettings:
		return m.settings.View()
	}
	h := m.scrollbackHeight()
	rows, scroll := m.out.render(screen.RenderOptions{Width: max(m.width, 1), Height: h, Scroll: m.scroll, NoColor: noColor})
	m.scroll = scroll
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(r)
		b.WriteByte('\n')
	}
	if m.notice != "" {
		b.WriteString(m.notice + "\n")
	}
	b.WriteString(m.input.View() + "\n")
	b.WriteString(m.statusBar(time.Now()))
	return b.String()
}
