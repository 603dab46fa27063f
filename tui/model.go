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
	"github.com/hangdog/hangdog/internal/termtext/screen"
	"github.com/hangdog/hangdog/settings"
	"github.com/hangdog/hangdog/taskctl"
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

	echoOff   bool     // the running command's terminal does not echo input
	held      []string // background notices waiting for the foreground command to end
	notice    string   // one line above the prompt
	bgRunning int
	// calls are the MCP tool calls in flight on the running proxied
	// servers (`hangdog mcp-proxy`), as their tasks list them.
	calls taskctl.CallStats
	// watching is how many of the shell's watchers are active (watchScope).
	watching int
	bgNew    int    // background tasks that ended since /bg was last opened
	detached string // the task last moved to the background, which /bg opens at
	taskIDs  []string
	own      map[string]bool // ran here in the foreground and not detached

	find     *find     // Ctrl+F: searching the scrollback
	hfind    *histFind // Ctrl+R: searching the history
	helpOpen bool      // /help's overlay is up

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
		calls   taskctl.CallStats
		// watching is the count of active watchers; -1 when unknown.
		watching int
	}
	bgEventMsg struct{ ev bgtasks.Event }
	noticeMsg  struct {
		text string
		bad  bool
		// keep puts the notice in the scrollback too: a task's end the
		// shell caused itself (a /kill), which must outlive the next
		// command as every other end does.
		keep bool
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
	m.input.PlaceholderStyle = styleMuted // its default is a colour even under NO_COLOR
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

// setPrompt sets the prompt for what is running and sizes the input to the
// terminal: a long directory is cut from the left, so a narrow terminal
// still has room to see what is typed.
func (m *Model) setPrompt() {
	m.input.EchoMode = textinput.EchoNormal
	if m.fg != nil {
		m.input.Prompt = stylePrompt.Render("» ")
		m.input.Placeholder = "input for the command · /bg-detach or Ctrl+B to background it · Ctrl+C to interrupt"
		if m.echoOff {
			// The command's terminal does not echo (a password prompt):
			// neither does the shell, and the line all goes to it.
			m.input.EchoMode = textinput.EchoPassword
			m.input.EchoCharacter = '•'
			m.input.Prompt = stylePrompt.Render("» ") + styleMuted.Render("(hidden) ")
			m.input.Placeholder = "hidden input: the command turned echo off"
		}
	} else {
		m.input.Prompt = styleMuted.Render(clipLeft(shortDir(m.cwd), max(m.width/3, 4))) + stylePrompt.Render(" ❯ ")
		m.input.Placeholder = "a command, or /help"
	}
	// One column for the cursor, one left unused for the terminal.
	m.input.Width = max(m.width-lipglossWidth(m.input.Prompt)-2, 1)
}

// clipLeft keeps the last n columns of s, starting a cut with "…".
func clipLeft(s string, n int) string {
	if frameWidth(s) <= n {
		return s
	}
	rs := []rune(s)
	for i := range rs {
		if t := "…" + string(rs[i:]); frameWidth(t) <= n {
			return t
		}
	}
	return "…"
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
	// The wheel scrolls the output; Shift still selects text in most
	// terminals while the mouse is reported.
	return tea.Batch(m.mail.next(time.Time{}), tick(), m.pollBackground(), tea.EnableMouseCellMotion)
}

func tick() tea.Cmd {
	return tea.Tick(time.Second, func(t time.Time) tea.Msg { return tickMsg(t) })
}

// followEvents turns ended background tasks into notices. It lives until
// the shell closes.
func (m *Model) followEvents() {
	last, _ := m.reg.LastEventSeq()
	m.reg.FollowEvents(m.ctx, last, func(e bgtasks.Event) error {
		m.mail.post(bgEventMsg{ev: e})
		return nil
	})
}

// completedIDs is how many ended tasks' ids the shell offers to complete,
// the newest.
const completedIDs = 50

// pollBackground counts running background tasks for the status bar and
// keeps task ids for completion.
func (m *Model) pollBackground() tea.Cmd {
	reg := m.reg
	return func() tea.Msg {
		watching := activeWatchers(reg)
		// Every second: the live tasks and the newest ended ones only, so
		// a home with thousands of ended tasks costs the shell nothing.
		tasks, _, err := reg.Recent(nil, completedIDs)
		if err != nil {
			return bgStatsMsg{running: -1, watching: watching}
		}
		s := bgStatsMsg{watching: watching}
		for _, t := range tasks {
			s.ids = append(s.ids, t.ID)
			if t.Mode == bgtasks.Background && !t.State().Ended() {
				s.running++
				s.calls.Add(t.Calls)
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
		m.setPrompt()
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
			m.bgRunning, m.taskIDs, m.calls = msg.running, msg.ids, msg.calls
		}
		if msg.watching >= 0 {
			m.watching = msg.watching
		}
		return m, nil
	case watchersMsg:
		m.showWatchers(msg)
		return m, nil
	case VerdictMsg:
		m.setVerdict(msg)
		return m, nil
	case noticeMsg:
		m.setNotice(msg.text, msg.bad)
		if msg.keep {
			m.keepLine(msg.text, msg.bad)
		}
		return m, nil
	case fullscreenDoneMsg:
		return m, m.fullscreenDone(msg)
	case eventsMsg:
		m.showEvents(msg)
		return m, nil
	case echoMsg:
		if msg.fg != m.fg {
			return m, nil // that command is over; so is its polling
		}
		if msg.off != m.echoOff {
			m.echoOff = msg.off
			m.setPrompt()
		}
		return m, m.pollEcho(msg.fg, echoPoll)
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
	case tea.MouseMsg:
		return m, m.mouse(msg)
	case tasksListMsg:
		m.tasks.update(msg)
		// The selection may have moved to another task, or its checks
		// grown since: read them again with every listing.
		return m, m.tasks.readChecks(m.reg)
	case tasksChecksMsg:
		m.tasks.updateChecks(msg)
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
		return m.pollEcho(msg.fg, 0)
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
	// A detach by Ctrl+B is told once, by finished, when the run's outcome
	// arrives: the two messages come in either order, and a second notice
	// here would replace that one or be replaced by it.
	if m.fg == msg.x.fg {
		m.fg.link.Resize(uint16(m.height), uint16(m.width))
	}
	// bubbletea turns mouse reporting off for the hand-over and does not
	// turn it back on.
	return tea.EnableMouseCellMotion
}

// finished reports how the foreground command ended and gives the prompt back.
func (m *Model) finished(msg finishedMsg) {
	f := msg.fg
	elapsed := taskctl.RoundDuration(time.Since(f.started))
	switch {
	case msg.detach != nil && msg.detach.ExitCode != nil:
		// The command exited; what it started runs on in its task.
		d := msg.detach
		delete(m.own, f.id)
		m.detached = d.TaskID
		m.out.freshLine()
		style := styleWarn
		if *d.ExitCode != 0 {
			style = styleBad
		}
		m.out.line(style.Render(fmt.Sprintf("⇥ exited %d after %s; %s keeps running what it left:", *d.ExitCode,
			taskctl.RoundDuration(time.Duration(d.ElapsedMS)*time.Millisecond), d.TaskID)) +
			styleMuted.Render(fmt.Sprintf("  (/logs %s · /kill %s)", d.TaskID, d.TaskID)))
		// One line each: a line is cut at the terminal's width, and the
		// address is what the user needs.
		for _, p := range d.LeftRunning {
			m.out.line(styleWarn.Render("  " + termtext.OneLine(taskctl.DescribeLeft([]taskctl.LeftProc{p}))))
		}
		m.setNotice(d.TaskID+" keeps running until what it left ends; /kill "+d.TaskID+" stops it", false)
	case msg.detach != nil:
		d := msg.detach
		delete(m.own, f.id)
		m.detached = d.TaskID
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
			m.out.line(styleBad.Render(fmt.Sprintf("✗ %s after %s: %s", resultWords(r), elapsed, termtext.OneLine(r.Reason))))
		case r.Signal != "" || r.ExitCode != 0:
			m.out.line(styleBad.Render("✗ "+resultWords(r)) + styleMuted.Render(" after "+elapsed.String()))
		}
	}
	for _, line := range m.held {
		m.out.line(line)
	}
	m.held = nil
	if m.fg == f {
		m.fg = nil
		m.echoOff = false
		m.verdict = VerdictMsg{}
		m.quitArmed = false
		m.setPrompt()
	}
}

// backgroundEvent reports a background task's end: as a notice above the
// prompt and as a line in the scrollback, which keeps it after the next
// command. A line arriving while a command writes to the scrollback waits
// for that command to end, so it never splits the command's output.
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
	text, bad := eventText(e)
	m.setNotice(text, bad)
	m.keepLine(text, bad)
}

// keepLine writes a task's end into the scrollback, held while a
// foreground command writes there so it never splits that output.
func (m *Model) keepLine(text string, bad bool) {
	line := styleOK.Render("· " + text)
	if bad {
		line = styleBad.Render("· " + text)
	}
	if m.fg != nil {
		m.held = append(m.held, line)
		return
	}
	m.out.line(line)
}

// eventText is how the shell words a task's end, and whether it is bad news.
func eventText(e bgtasks.Event) (string, bool) {
	how := taskctl.DescribeEnd(taskctl.EventResult(e), taskctl.TerseWords{})
	text := fmt.Sprintf("%s %s after %s: %s", e.TaskID, how, taskctl.RoundDuration(time.Duration(e.DurationMS)*time.Millisecond), clip(termtext.OneLine(e.Command), 60))
	return text, e.Kind != bgtasks.EventExited || (e.ExitCode != nil && *e.ExitCode != 0) || e.Signal != ""
}

// resultWords says how a foreground command ended, in the words the shell
// uses for every end.
func resultWords(r *bgtasks.Result) string {
	return taskctl.DescribeEnd(r, taskctl.TerseWords{})
}

func (m *Model) setNotice(text string, bad bool) {
	text = termtext.OneLine(text)
	if bad {
		m.notice = styleBad.Render(text)
	} else {
		m.notice = styleOK.Render(text)
	}
}

// echoPoll is how often the shell asks whether the running command's
// terminal echoes: often enough that a password prompt is masked before the
// first key of the answer.
const echoPoll = 100 * time.Millisecond

type echoMsg struct {
	fg  *foreground
	off bool
}

// pollEcho asks the command's supervisor, after wait, whether its terminal
// has echo off. The supervisor holds the PTY; the shell only sees bytes.
func (m *Model) pollEcho(f *foreground, wait time.Duration) tea.Cmd {
	reg := m.reg
	return tea.Tick(wait, func(time.Time) tea.Msg {
		msg := echoMsg{fg: f}
		t, err := reg.Get(f.id)
		if err != nil {
			return msg
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if st, err := taskctl.TaskStatus(ctx, t); err == nil {
			msg.off = st.EchoOff
		}
		return msg
	})
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
	switch {
	case m.helpOpen:
		// Any key closes the overlay; Esc and q do nothing else.
		m.helpOpen = false
		if s := k.String(); s == "esc" || s == "enter" {
			return nil
		}
	case m.find != nil:
		return m.findKey(k)
	case m.hfind != nil:
		return m.histFindKey(k)
	}
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
		line, candidates := completeLine(m.input.Value(), m.taskIDs, m.cwd)
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
	case "ctrl+f":
		m.openFind()
		return nil
	case "ctrl+r":
		m.openHistFind()
		return nil
	case "pgup", "pgdown":
		return m.scrollKey(k.String())
	case "home", "end":
		// On an empty prompt they scroll; on a line they move the cursor.
		if m.input.Value() == "" {
			return m.scrollKey(k.String())
		}
	case "esc":
		m.scroll = 0
		m.notice = ""
		return nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	return cmd
}

// wheelStep is how many rows a mouse-wheel notch scrolls.
const wheelStep = 3

// scrollKey scrolls the shell's output: a page, a wheel notch, to the oldest
// line kept (home) or back to the newest (end).
func (m *Model) scrollKey(key string) tea.Cmd {
	page := max(m.scrollbackHeight()-1, 1)
	switch key {
	case "pgup":
		m.scroll += page
	case "pgdown":
		m.scroll = max(0, m.scroll-page)
	case "wheelup":
		m.scroll += wheelStep
	case "wheeldown":
		m.scroll = max(0, m.scroll-wheelStep)
	case "home":
		m.scroll = 1 << 30 // Render clamps it to the history it has
	case "end":
		m.scroll = 0
	}
	return nil
}

// mouse handles the wheel; clicks are left alone.
func (m *Model) mouse(msg tea.MouseMsg) tea.Cmd {
	if msg.Action != tea.MouseActionPress {
		return nil
	}
	dir := ""
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		dir = "wheelup"
	case tea.MouseButtonWheelDown:
		dir = "wheeldown"
	default:
		return nil
	}
	switch m.view {
	case viewShell:
		return m.scrollKey(dir)
	case viewLog:
		if dir == "wheelup" {
			m.logv.scroll += wheelStep
		} else {
			m.logv.scroll = max(0, m.logv.scroll-wheelStep)
		}
	}
	return nil
}

// submit acts on an entered line: a slash command, input for the running
// command, or a new command.
func (m *Model) submit(line string) tea.Cmd {
	trimmed := strings.TrimSpace(line)
	if m.fg != nil && m.echoOff {
		// A hidden line is the command's secret, even one starting with
		// "/": it is neither a shell command nor shown in a notice.
		m.fg.link.Input([]byte(line + "\r"))
		return nil
	}
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
		Warn: func(msg string) { m.out.line(styleBad.Render("warning: " + termtext.OneLine(msg))) },
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
	m.setNotice("interrupted "+m.fg.id+" · Ctrl+C again within a second kills it", false)
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

// View is every frame the shell draws, passed through fitFrame so that no
// view can draw wider or taller than the terminal or lose its status bar.
func (m *Model) View() string {
	if m.quitting {
		return ""
	}
	return fitFrame(m.render(), max(m.width, 1), max(m.height, 1))
}

func (m *Model) render() string {
	switch m.view {
	case viewTasks:
		return m.tasks.view(m.width, m.height, m.statusBar(time.Now()))
	case viewLog:
		return m.logv.view(m.width, m.height, m.statusBar(time.Now()))
	case viewSettings:
		return m.settings.View()
	}
	h := m.scrollbackHeight()
	ro := screen.RenderOptions{Width: max(m.width, 1), Height: h, Scroll: m.scroll, NoColor: noColor}
	if m.find != nil && m.find.found {
		ro.Find, ro.Current = m.find.input.Value(), m.find.match
	}
	rows, scroll := m.out.render(ro)
	m.scroll = scroll
	if m.helpOpen {
		rows = overlay(rows, m.helpBox(), m.width)
	}
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(r)
		b.WriteByte('\n')
	}
	if m.notice != "" {
		b.WriteString(m.notice + "\n")
	}
	switch {
	case m.find != nil:
		b.WriteString(m.findLine() + "\n")
	case m.hfind != nil:
		b.WriteString(m.histFindLine() + "\n")
	default:
		b.WriteString(m.input.View() + "\n")
	}
	b.WriteString(m.statusBar(time.Now()))
	return b.String()
}
