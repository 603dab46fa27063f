package settingsview

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/hangdog/hangdog/settings"
	"github.com/hangdog/hangdog/tui/internal/teawait"
)

func waitFor(t *testing.T, tm *teatest.TestModel, want ...string) {
	t.Helper()
	teawait.For(t, tm, 5*time.Second, want...)
}

// standalone is the screen as `hangdog settings` runs it: closing it ends
// the program.
func standalone(opts Options) Model {
	m := New(opts)
	m.standalone = true
	return m
}

func key(t tea.KeyType) tea.KeyMsg { return tea.KeyMsg{Type: t} }

// selectKey moves the selection down to the named key.
func selectKey(t *testing.T, tm *teatest.TestModel, name string) {
	t.Helper()
	for i, k := range settings.Keys() {
		if k.Key == name {
			for range i {
				tm.Send(key(tea.KeyDown))
			}
			return
		}
	}
	t.Fatalf("no key %s", name)
}

// isolated gives the screen a user file and a project directory of its own,
// and keeps HANGDOG_WATCHDOG_* variables of the machine out.
func isolated(t *testing.T) Options {
	t.Helper()
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "HANGDOG_WATCHDOG_") {
			t.Setenv(name, "")
			os.Unsetenv(name)
		}
	}
	dir := t.TempDir()
	return Options{Dir: dir, UserFile: filepath.Join(dir, "config", "config.yaml")}
}

func TestRefusesAnInvalidValueAndSavesAValidOne(t *testing.T) {
	opts := isolated(t)
	os.MkdirAll(filepath.Dir(opts.UserFile), 0o700)
	original := "# my settings\nwatchdog:\n  # how sure\n  confidence: 0.6 # keep\n"
	os.WriteFile(opts.UserFile, []byte(original), 0o600)

	tm := teatest.NewTestModel(t, standalone(opts), teatest.WithInitialTermSize(130, 40))
	waitFor(t, tm, "watchdog.confidence", "0.6", "user file")

	selectKey(t, tm, "watchdog.confidence")
	tm.Send(key(tea.KeyCtrlU))
	tm.Type("1.7")
	waitFor(t, tm, "1.7 ✗", "is out of range; allowed: a number from 0 to 1")
	tm.Send(key(tea.KeyCtrlS))
	waitFor(t, tm, "not saved: watchdog.confidence 1.7 is out of range")
	if b, _ := os.ReadFile(opts.UserFile); string(b) != original {
		t.Fatalf("refused value reached the file:\n%s", b)
	}

	tm.Send(key(tea.KeyCtrlR)) // revert confidence
	tm.Send(key(tea.KeyDown))  // agreeChecks
	tm.Send(key(tea.KeyBackspace))
	tm.Type("3")
	tm.Send(key(tea.KeyCtrlS))
	waitFor(t, tm, "saved 1 change(s) to "+opts.UserFile)
	tm.Send(key(tea.KeyEsc))
	final := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(Model)
	if final.saved != opts.UserFile {
		t.Fatalf("saved = %q", final.saved)
	}

	s, err := settings.Load(settings.Options{Dir: opts.Dir, UserFile: opts.UserFile, Env: func(string) (string, bool) { return "", false }})
	if err != nil {
		t.Fatal(err)
	}
	if w := s.Watchdog(); w.AgreeChecks != 3 || w.Confidence != 0.6 {
		t.Fatalf("loaded agreeChecks %d confidence %v", w.AgreeChecks, w.Confidence)
	}
	b, _ := os.ReadFile(opts.UserFile)
	for _, comment := range []string{"# my settings", "# how sure", "# keep"} {
		if !strings.Contains(string(b), comment) {
			t.Fatalf("comment %q lost:\n%s", comment, b)
		}
	}
}

func TestTogglesChoicesAndProjectFile(t *testing.T) {
	opts := isolated(t)
	tm := teatest.NewTestModel(t, standalone(opts), teatest.WithInitialTermSize(130, 40))
	waitFor(t, tm, "watchdog.enabled")
	tm.Send(tea.KeyMsg{Type: tea.KeySpace, Runes: []rune(" ")}) // enabled: true → false
	selectKey(t, tm, "watchdog.action")
	tm.Send(key(tea.KeyRight)) // background → kill
	tm.Send(key(tea.KeyTab))   // save to the project file
	waitFor(t, tm, "will save to the project file")
	tm.Send(key(tea.KeyCtrlS))
	project := filepath.Join(opts.Dir, settings.ProjectFileName)
	waitFor(t, tm, "saved 2 change(s) to "+project)
	tm.Send(key(tea.KeyEsc))
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))

	s, err := settings.Load(settings.Options{Dir: opts.Dir, UserFile: opts.UserFile, Env: func(string) (string, bool) { return "", false }})
	if err != nil {
		t.Fatal(err)
	}
	if w := s.Watchdog(); w.Enabled || w.Action != "kill" {
		t.Fatalf("project file gave enabled=%v action=%s", w.Enabled, w.Action)
	}
	if _, err := os.Stat(opts.UserFile); !os.IsNotExist(err) {
		t.Fatalf("the user file was written: %v", err)
	}
}

func TestEscWithUnsavedChangesAsksFirst(t *testing.T) {
	opts := isolated(t)
	tm := teatest.NewTestModel(t, standalone(opts), teatest.WithInitialTermSize(130, 40))
	waitFor(t, tm, "watchdog.enabled")
	tm.Send(key(tea.KeyLeft))
	tm.Send(key(tea.KeyEsc))
	waitFor(t, tm, "1 unsaved change(s): esc again to discard")
	tm.Send(key(tea.KeyEsc))
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	if _, err := os.Stat(opts.UserFile); !os.IsNotExist(err) {
		t.Fatalf("discarded change was written: %v", err)
	}
}

func TestBadFileStillOpens(t *testing.T) {
	opts := isolated(t)
	os.MkdirAll(filepath.Dir(opts.UserFile), 0o700)
	os.WriteFile(opts.UserFile, []byte("watchdog:\n  confidence: 7\n"), 0o600)
	m := New(opts)
	if m.loadErr == "" || !strings.Contains(m.View(), "could not load") {
		t.Fatalf("a bad file must be reported on screen:\n%s", m.View())
	}
}
