package settingsview

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/hangdog/hangdog/settings"
)

// Options say where the screen reads and writes settings.
type Options struct {
	Dir      string // where the project file is looked for; "" = the working directory
	UserFile string // "" = settings.UserFile()
}

// ClosedMsg is sent when the person leaves the screen. Saved names the file
// last written, "" when nothing was saved.
type ClosedMsg struct{ Saved string }

// Model is the settings screen.
type Model struct {
	opts       Options
	fields     []field
	sel        int
	target     target
	loadErr    string
	status     string
	statusBad  bool
	confirmEsc bool
	saved      string
	width      int
	height     int
	standalone bool
}

type target int

const (
	targetUser target = iota
	targetProject
)

// New loads the settings. A file with a bad value does not stop the screen:
// it shows the error, and the defaults, so the value can be fixed here.
func New(opts Options) Model {
	if opts.Dir == "" {
		opts.Dir, _ = os.Getwd()
	}
	if opts.UserFile == "" {
		opts.UserFile = settings.UserFile()
	}
	m := Model{opts: opts, width: 100, height: 30}
	m.load()
	return m
}

func (m *Model) load() {
	m.fields = m.fields[:0]
	s, err := settings.Load(settings.Options{Dir: m.opts.Dir, UserFile: m.opts.UserFile})
	if err != nil {
		m.loadErr = err.Error()
		for _, k := range settings.Keys() {
			m.fields = append(m.fields, newField(settings.Entry{
				Key: k.Key, Value: k.Default, Source: settings.SourceDefault, Allowed: k.Allowed,
				Help: k.Help, Kind: k.Kind, Choices: k.Choices,
			}))
		}
		return
	}
	m.loadErr = ""
	for _, e := range s.Entries() {
		m.fields = append(m.fields, newField(e))
	}
}

// userFile and projectFile are where a save goes.
func (m *Model) userFile() string { return m.opts.UserFile }

func (m *Model) projectFile() string {
	if p, ok := settings.FindProjectFile(m.opts.Dir); ok {
		return p
	}
	return filepath.Join(m.opts.Dir, settings.ProjectFileName)
}

func (m *Model) targetFile() string {
	if m.target == targetProject {
		return m.projectFile()
	}
	return m.userFile()
}

func (m Model) Init() tea.Cmd { return nil }

func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case ClosedMsg:
		if m.standalone {
			return m, tea.Quit
		}
	case tea.KeyMsg:
		return m.key(msg)
	}
	return m, nil
}

func (m Model) key(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	f := &m.fields[m.sel]
	if k.String() != "esc" {
		m.confirmEsc = false
	}
	if k.Type == tea.KeyRunes {
		// Typed text is text, even a chunk that spells "up".
		if f.typed() {
			f.set(f.text + string(k.Runes))
		}
		return m, nil
	}
	switch k.String() {
	case "up", "ctrl+p":
		m.sel = (m.sel - 1 + len(m.fields)) % len(m.fields)
	case "down", "ctrl+n":
		m.sel = (m.sel + 1) % len(m.fields)
	case "tab":
		m.target = 1 - m.target
		m.setStatus(false, "will save to the %s", m.describeTarget())
	case "ctrl+s":
		m.save()
	case "ctrl+r":
		f.set(f.orig)
	case "esc", "ctrl+c", "ctrl+q":
		if m.dirtyCount() > 0 && !m.confirmEsc && k.String() == "esc" {
			m.confirmEsc = true
			m.setStatus(true, "%d unsaved change(s): esc again to discard them, ctrl+s to save", m.dirtyCount())
			return m, nil
		}
		saved := m.saved
		return m, func() tea.Msg { return ClosedMsg{Saved: saved} }
	case "left":
		f.toggle(-1)
	case "right", " ", "enter":
		if !f.typed() {
			f.toggle(1)
		} else if k.String() == " " {
			f.set(f.text + " ")
		}
	case "backspace", "ctrl+h":
		if f.typed() && f.text != "" {
			r := []rune(f.text)
			f.set(string(r[:len(r)-1]))
		}
	case "ctrl+u":
		if f.typed() {
			f.set("")
		}
	}
	return m, nil
}

func (m *Model) dirtyCount() int {
	n := 0
	for i := range m.fields {
		if m.fields[i].dirty() {
			n++
		}
	}
	return n
}

func (m *Model) setStatus(bad bool, format string, args ...any) {
	m.status, m.statusBad = fmt.Sprintf(format, args...), bad
}

func (m *Model) describeTarget() string {
	if m.target == targetProject {
		return "project file " + m.projectFile()
	}
	return "user file " + m.userFile()
}

// save writes every changed key to the chosen file, refusing all of them
// while any is invalid, then reloads so sources show where values now come
// from.
func (m *Model) save() {
	var changed []*field
	for i := range m.fields {
		f := &m.fields[i]
		if !f.dirty() {
			continue
		}
		if f.err != "" {
			m.setStatus(true, "not saved: %s %s; fix or revert it (ctrl+r) first", f.entry.Key, f.err)
			m.sel = i
			return
		}
		changed = append(changed, f)
	}
	if len(changed) == 0 {
		m.setStatus(false, "nothing changed")
		return
	}
	path := m.targetFile()
	for _, f := range changed {
		if err := settings.SetInFile(path, f.entry.Key, f.text); err != nil {
			m.setStatus(true, "not saved: %v", err)
			return
		}
	}
	m.saved = path
	var overridden []string
	sel := m.sel
	m.load()
	m.sel = sel
	for _, f := range changed {
		for _, nf := range m.fields {
			if nf.entry.Key == f.entry.Key && nf.orig != f.text {
				overridden = append(overridden, nf.entry.Key+" (by "+nf.entry.SourceDetail+")")
			}
		}
	}
	m.setStatus(false, "saved %d change(s) to %s; the next command uses them", len(changed), path)
	if len(overridden) > 0 {
		m.setStatus(true, "saved to %s, but still overridden: %s", path, strings.Join(overridden, ", "))
	}
}

var (
	styleTitle  = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.AdaptiveColor{Light: "#1D4ED8", Dark: "#7AA2F7"})
	styleHeader = lipgloss.NewStyle().Bold(true).Underline(true)
	styleSel    = lipgloss.NewStyle().Reverse(true)
	styleBad    = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.AdaptiveColor{Light: "#B91C1C", Dark: "#F7768E"})
	styleDirty  = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.AdaptiveColor{Light: "#B45309", Dark: "#E0AF68"})
	styleMuted  = lipgloss.NewStyle().Foreground(lipgloss.AdaptiveColor{Light: "#6B7280", Dark: "#737AA2"})
	styleOK     = lipgloss.NewStyle().Foreground(lipgloss.AdaptiveColor{Light: "#15803D", Dark: "#9ECE6A"})
)

func sourceText(e settings.Entry) string {
	switch e.Source {
	case settings.SourceUser:
		return "user file"
	case settings.SourceProject:
		return "project file"
	case settings.SourceEnv:
		return "environment" // the variable is named below when selected
	}
	return e.Source
}

func (m Model) View() string {
	var b strings.Builder
	w := max(m.width, 40)
	b.WriteString(styleTitle.Render("hangdog settings") + styleMuted.Render("  save to: ") + m.describeTarget() + styleMuted.Render("  (tab switches)") + "\n")
	if m.loadErr != "" {
		b.WriteString(styleBad.Render(clip("current settings could not load: "+m.loadErr, w)) + "\n")
	}
	const keyW, valW, srcW = 36, 18, 14
	allowW := max(w-keyW-valW-srcW-6, 10)
	b.WriteString(styleHeader.Render(pad("KEY", keyW)+" "+pad("VALUE", valW)+" "+pad("SOURCE", srcW)+" "+pad("ALLOWED", allowW)) + "\n")
	// Keep the selection in view on short terminals.
	avail := max(m.height-8, 3)
	start := max(0, min(m.sel-avail/2, len(m.fields)-avail))
	end := min(len(m.fields), start+avail)
	for i := start; i < end; i++ {
		f := m.fields[i]
		val := f.text
		if val == "" && f.typed() {
			val = `""`
		}
		mark := ""
		if f.dirty() {
			mark = " *"
		}
		valCell := pad(clip(val, valW-2)+mark, valW)
		switch {
		case f.err != "":
			valCell = styleBad.Render(pad(clip(val, valW-3)+" ✗", valW))
		case f.dirty():
			valCell = styleDirty.Render(valCell)
		}
		// The arrow, not only the reverse video, marks the selection:
		// under NO_COLOR lipgloss draws no attributes at all.
		key := "  " + pad(f.entry.Key, keyW-2)
		if i == m.sel {
			key = styleSel.Render("▶ " + pad(f.entry.Key, keyW-2))
		}
		b.WriteString(key + " " + valCell + " " + pad(clip(sourceText(f.entry), srcW), srcW) + " " + styleMuted.Render(clip(f.entry.Allowed, allowW)) + "\n")
	}
	f := m.fields[m.sel]
	b.WriteString("\n" + clip(f.entry.Key+": "+f.entry.Help, w) + "\n")
	switch {
	case f.err != "":
		b.WriteString(styleBad.Render(clip("✗ refused: "+f.err, w)) + "\n")
	case f.typed():
		b.WriteString(styleMuted.Render(clip("type a value ("+f.entry.Allowed+"); backspace, ctrl+u clears, ctrl+r reverts", w)) + "\n")
	default:
		b.WriteString(styleMuted.Render(clip("space or ←/→ to change ("+f.entry.Allowed+")", w)) + "\n")
	}
	if f.entry.Source == settings.SourceEnv {
		b.WriteString(styleDirty.Render(clip("set by "+f.entry.SourceDetail+": it overrides both files", w)) + "\n")
	}
	if m.status != "" {
		st := styleOK
		if m.statusBad {
			st = styleBad
		}
		b.WriteString(st.Render(clip(m.status, w)) + "\n")
	}
	b.WriteString(styleMuted.Render(clip("↑↓ select · ctrl+s save · tab user/project file · esc back", w)))
	return b.String()
}

func pad(s string, w int) string {
	if n := lipgloss.Width(s); n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return s
}

// clip cuts s to at most n terminal columns (wide characters count two),
// ending a cut with "…".
func clip(s string, n int) string { return ansi.Truncate(s, max(n, 0), "…") }

// Run shows the settings screen on its own, as `hangdog settings` does.
func Run(opts Options) error {
	m := New(opts)
	m.standalone = true
	_, err := tea.NewProgram(m, tea.WithAltScreen()).Run()
	if err != nil {
		return fmt.Errorf("settings screen: %w", err)
	}
	return nil
}
