package tui

import (
	"fmt"
	"os"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/internal/termtext"
	"github.com/hangdog/hangdog/watch"
	"github.com/hangdog/hangdog/watchctl"
)

// watchCaller is who the shell is to the watcher service: the session
// when the shell runs inside one ($HANGDOG_SESSION, as `hangdog watch ls`
// reads it), whose watchers it shows; otherwise the person at this
// terminal, the user the agents' watchers work for, who sees every
// watcher of the home, as /bg lists every task.
func watchCaller() (c watchctl.Caller, all bool) {
	if s := os.Getenv("HANGDOG_SESSION"); s != "" {
		return watchctl.Caller{Owner: s}, false
	}
	return watchctl.Caller{Person: true}, true
}

// listWatchers reads the watchers through the watcher service; the count
// of active ones rides on the background poll (activeWatchers).
func listWatchers(reg *bgtasks.Registry) ([]*watch.Watcher, error) {
	svc, err := watchctl.Open(reg, watchctl.Options{})
	if err != nil {
		return nil, err
	}
	return svc.List(watchCaller())
}

// activeWatchers counts the watchers that are not paused, or -1 when the
// store cannot be read (the bar keeps its last count).
func activeWatchers(reg *bgtasks.Registry) int {
	ws, err := listWatchers(reg)
	if err != nil {
		return -1
	}
	n := 0
	for _, w := range ws {
		if !w.State.Paused {
			n++
		}
	}
	return n
}

type watchersMsg struct {
	watchers []*watch.Watcher
	err      error
}

// openWatchers is /watch: the list, read off the UI goroutine.
func (m *Model) openWatchers() tea.Cmd {
	reg := m.reg
	return func() tea.Msg {
		ws, err := listWatchers(reg)
		return watchersMsg{watchers: ws, err: err}
	}
}

// showWatchers prints the list into the scrollback, as /events does, so
// it stays readable while the next command runs.
func (m *Model) showWatchers(msg watchersMsg) {
	if msg.err != nil {
		m.setNotice("watchers: "+msg.err.Error(), true)
		return
	}
	m.out.line(styleTitle.Render("watchers") + styleMuted.Render(fmt.Sprintf(" — %d", len(msg.watchers))))
	if len(msg.watchers) == 0 {
		m.out.line(styleMuted.Render("  none: `hangdog watch create` (or an agent's watch_create) makes one"))
		return
	}
	m.out.line(styleMuted.Render(fmt.Sprintf("  %-5s %-8s %-7s %-6s %-10s %s", "ID", "KIND", "STATE", "FIRES", "LAST", "WHAT")))
	for _, w := range msg.watchers {
		state, style := "active", styleOK
		if w.State.Paused {
			state, style = "paused", styleWarn
		}
		fires := fmt.Sprintf("%d/%d", w.State.FiresUsed, w.Spec.MaxFires)
		if w.Spec.MaxFires == 0 {
			fires = fmt.Sprintf("%d/∞", w.State.FiresUsed)
		}
		last := "—"
		if w.State.LastCheck != nil {
			last = w.State.LastCheck.Local().Format("15:04:05")
		}
		m.out.line(fmt.Sprintf("  %-5s %-8s ", w.Spec.ID, w.Spec.Kind) + style.Render(fmt.Sprintf("%-7s", state)) +
			fmt.Sprintf(" %-6s %-10s ", fires, last) + styleMuted.Render(clip(termtext.OneLine(w.Spec.Label()), 60)))
		if w.State.Paused && w.State.Reason != "" {
			m.out.line(styleWarn.Render("        paused: " + clip(termtext.OneLine(w.State.Reason), 100)))
		}
	}
}
