package tui

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/taskctl"
	"github.com/hangdog/hangdog/tui/internal/teawait"
)

// world is an isolated hangdog home and config for one test.
type world struct {
	reg      *bgtasks.Registry
	dir      string
	userFile string
	history  string
}

func newWorld(t *testing.T) world {
	t.Helper()
	// Unix socket paths are limited to 108 bytes: keep the home short.
	root, err := os.MkdirTemp("", "hdt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	reg, err := bgtasks.Open(filepath.Join(root, "h"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { killAll(t, reg) })
	return world{reg: reg, dir: root, userFile: filepath.Join(root, "c", "config.yaml"), history: filepath.Join(root, "h", "shell_history")}
}

// killAll stops every task a test left running.
func killAll(t *testing.T, reg *bgtasks.Registry) {
	tasks, _ := reg.List()
	for _, task := range tasks {
		if !task.State().Ended() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			taskctl.KillTask(ctx, task, syscall.SIGKILL, 0, "test cleanup")
			cancel()
		}
	}
}

func (w world) shell(t *testing.T) (*Model, *teatest.TestModel) {
	t.Helper()
	m, err := New(Options{Registry: w.reg, Dir: w.dir, HistoryFile: w.history, UserFile: w.userFile})
	if err != nil {
		t.Fatal(err)
	}
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 30))
	t.Cleanup(func() {
		tm.Quit()
		m.Close()
	})
	return m, tm
}

// waitFor reads the program's output until it shows all of want.
func waitFor(t *testing.T, tm *teatest.TestModel, want ...string) {
	t.Helper()
	teawait.For(t, tm, 20*time.Second, want...)
}

func enter(tm *teatest.TestModel, line string) {
	tm.Type(line)
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
}

func TestCommandOutputAndWatchdogStatus(t *testing.T) {
	w := newWorld(t)
	_, tm := w.shell(t)
	waitFor(t, tm, "idle", "action: background")
	// Markers are computed, so the echoed command line cannot match them.
	enter(tm, "printf 'o%se\\n\\033[31mt%so\\033[0m\\n' n w; sleep 2; echo th$((1+1))ree")
	waitFor(t, tm, "one", "two", "watchdog: 1", "▶ printf")
	waitFor(t, tm, "th2ree", "idle")
}

func TestWatchdogDisabledIsNotCounted(t *testing.T) {
	w := newWorld(t)
	os.MkdirAll(filepath.Dir(w.userFile), 0o700)
	os.WriteFile(w.userFile, []byte("watchdog:\n  enabled: false\n"), 0o600)
	m, tm := w.shell(t)
	enter(tm, "sleep 1; echo unwatched-$((6*7))")
	waitFor(t, tm, "▶ sleep 1", "unwatched-42")
	tm.Quit()
	final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*Model)
	if final != m || strings.Contains(m.out.text(), "watchdog:") {
		t.Fatal("unexpected final model")
	}
}

func TestDetachReturnsThePromptAndTheTaskKeepsRunning(t *testing.T) {
	for _, how := range []string{"ctrl+b", "/bg-detach"} {
		t.Run(how, func(t *testing.T) {
			w := newWorld(t)
			_, tm := w.shell(t)
			enter(tm, "echo $((6*7)); sleep 60")
			waitFor(t, tm, "42", "watchdog: 1")
			if how == "ctrl+b" {
				tm.Send(tea.KeyMsg{Type: tea.KeyCtrlB})
			} else {
				enter(tm, "/bg-detach checking the prompt")
			}
			waitFor(t, tm, "moved to the background", "idle", "bg: 1 running")
			tasks, err := w.reg.List()
			if err != nil || len(tasks) != 1 {
				t.Fatalf("tasks: %v %v", tasks, err)
			}
			if tasks[0].Mode != bgtasks.Background || tasks[0].State() != bgtasks.Running {
				t.Fatalf("task after detach: mode %s state %s", tasks[0].Mode, tasks[0].State())
			}
		})
	}
}

func TestInputGoesToTheRunningCommand(t *testing.T) {
	w := newWorld(t)
	_, tm := w.shell(t)
	enter(tm, `read -p "na""me? " n; echo "hello $n"`)
	waitFor(t, tm, "name?")
	enter(tm, "world")
	waitFor(t, tm, "hello world")
}

func TestCtrlCInterruptsAndTwiceKills(t *testing.T) {
	w := newWorld(t)
	_, tm := w.shell(t)
	// The command ignores SIGINT, so only the second Ctrl+C (a kill) ends it.
	enter(tm, "trap '' INT; echo re$((1))ady; sleep 60")
	waitFor(t, tm, "re1ady")
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	waitFor(t, tm, "killed", "idle")
}

func TestHistoryIsKeptAcrossShells(t *testing.T) {
	w := newWorld(t)
	_, tm := w.shell(t)
	enter(tm, "echo first")
	waitFor(t, tm, "❯ echo first")
	enter(tm, "/help")
	waitFor(t, tm, "Ctrl+B")
	tm.Quit()

	m2, tm2 := w.shell(t)
	up := tea.KeyMsg{Type: tea.KeyUp}
	down := tea.KeyMsg{Type: tea.KeyDown}
	tm2.Type("draft")
	tm2.Send(up)
	tm2.Send(up)
	tm2.Send(up) // past the oldest entry: stays there
	waitFor(t, tm2, "echo first")
	tm2.Send(down)
	tm2.Send(down)
	tm2.Send(tea.KeyMsg{Type: tea.KeyCtrlD}) // not empty: edits, does not quit
	if err := tm2.Quit(); err != nil {
		t.Fatal(err)
	}
	final := tm2.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*Model)
	if got := final.input.Value(); got != "draft" {
		t.Fatalf("after up, up, up, down, down the line is %q, want the draft back", got)
	}
	if got := m2.hist.entries; !slices.Equal(got, []string{"echo first", "/help"}) {
		t.Fatalf("history = %q", got)
	}
	st, err := os.Stat(w.history)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("history file: %v, mode %v", err, st.Mode())
	}
}

func TestSlashCompletion(t *testing.T) {
	w := newWorld(t)
	_, tm := w.shell(t)
	tm.Type("/se")
	tm.Send(tea.KeyMsg{Type: tea.KeyTab})
	waitFor(t, tm, "/send  /settings")
	tm.Type("t")
	tm.Send(tea.KeyMsg{Type: tea.KeyTab})
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitFor(t, tm, "hangdog settings", "save to: user file")
	tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
	waitFor(t, tm, "idle")
}

func TestCompleteTable(t *testing.T) {
	ids := []string{"t1", "t12", "t2"}
	cases := []struct {
		in, out string
		cands   []string
	}{
		{"/bg-", "/bg-detach ", nil},
		{"/b", "/bg", []string{"/bg", "/bg-detach"}},
		{"/LO", "/log", []string{"/log", "/logs"}},
		{"/logs t1", "/logs t1", []string{"t1", "t12"}},
		{"/kill t2", "/kill t2 ", nil},
		{"/send t12 hel", "/send t12 hel", nil},
		{"/help x", "/help x", nil},
		{"ls /b", "ls /b", nil},
		{"/zzz", "/zzz", nil},
	}
	for _, c := range cases {
		out, cands := complete(c.in, ids)
		if out != c.out || !slices.Equal(cands, c.cands) {
			t.Errorf("complete(%q) = %q %q, want %q %q", c.in, out, cands, c.out, c.cands)
		}
	}
}

func TestFloodFinishesAndKeepsTheEnd(t *testing.T) {
	w := newWorld(t)
	m, tm := w.shell(t)
	enter(tm, "yes | head -c 20000000; echo flood-$((1+1))")
	waitFor(t, tm, "flood-2")
	tm.Quit()
	tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second))
	text := m.out.text()
	if !strings.HasSuffix(strings.TrimRight(text, "\n"), "y\nflood-2") {
		t.Fatalf("scrollback ends %q", text[max(0, len(text)-40):])
	}
	held, dropped := m.out.s.Lines()
	if held > 10000 || dropped < 10000000-10000 {
		t.Fatalf("held %d lines, dropped %d", held, dropped)
	}
}

func TestBackgroundEndNotice(t *testing.T) {
	w := newWorld(t)
	_, tm := w.shell(t)
	enter(tm, "sleep 2; echo bye")
	waitFor(t, tm, "watchdog: 1")
	enter(tm, "/bg-detach")
	waitFor(t, tm, "moved to the background")
	waitFor(t, tm, "exited 0 after", "sleep 2; echo bye", "1 finished")
}

func TestExitScannerFindsSplitSequences(t *testing.T) {
	in := []byte("frame 1\x1b[?1049lafter")
	for cut := 0; cut <= len(in); cut++ {
		s := newExitScanner(true)
		var out bytes.Buffer
		chunk, rest, found := s.split(in[:cut])
		out.Write(chunk)
		if found {
			rest = append(rest, in[cut:]...)
		} else {
			chunk, rest, found = s.split(in[cut:])
			out.Write(chunk)
		}
		if !found || out.String() != "frame 1\x1b[?1049l" || string(rest) != "after" {
			t.Fatalf("cut %d: found %v, to terminal %q, rest %q", cut, found, out.String(), rest)
		}
	}
	// Application cursor keys end a top-like session; an alternate screen
	// session ignores them.
	s := newExitScanner(false)
	if _, _, found := s.split([]byte("x\x1b[?1l")); !found {
		t.Fatal("keys session did not end on ESC[?1l")
	}
	s = newExitScanner(true)
	if _, _, found := s.split([]byte("x\x1b[?1l")); found {
		t.Fatal("alternate-screen session ended on ESC[?1l")
	}
}

func TestMailboxNeverBlocksAndKeepsOrder(t *testing.T) {
	mb := newMailbox()
	for i := 0; i < 1000; i++ {
		mb.post(i)
		mb.markDirty()
	}
	msg := mb.next(time.Time{})().(mailMsg)
	if len(msg.msgs) != 1000 || !msg.dirty || msg.msgs[0] != 0 || msg.msgs[999] != 999 {
		t.Fatalf("got %d messages, dirty %v", len(msg.msgs), msg.dirty)
	}
	mb.close()
	if got := mb.next(time.Time{})(); got != nil {
		t.Fatalf("after close: %v", got)
	}
}

func TestTasksViewFollowsALogAndKills(t *testing.T) {
	w := newWorld(t)
	_, tm := w.shell(t)
	enter(tm, "echo logline-$((2*21)); sleep 60")
	waitFor(t, tm, "logline-42", "watchdog: 1")
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlB})
	waitFor(t, tm, "moved to the background")
	enter(tm, "/bg")
	waitFor(t, tm, "background tasks", "t1", "running", "background")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitFor(t, tm, "t1 · echo logline", "logline-42")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("x")})
	waitFor(t, tm, "killed") // the header follows the task's state
	tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
	waitFor(t, tm, "background tasks", "killed")
	task, err := w.reg.Get("t1")
	if err != nil || task.State() != bgtasks.Killed {
		t.Fatalf("t1 after kill: %v %v", task, err)
	}
}

func TestVerdictWording(t *testing.T) {
	cases := map[string]VerdictMsg{
		"—":                {},
		"progressing":      {Status: "progressing", Confidence: 0.9},
		"waiting for you":  {Status: "waiting", Confidence: 0.99, Streak: 1, Need: 2},
		"stuck 0.92 (1/2)": {Status: "stuck", Confidence: 0.92, Streak: 1, Need: 2},
		"looping 0.70":     {Status: "looping", Confidence: 0.7},
	}
	for want, v := range cases {
		if got := v.String(); got != want {
			t.Errorf("%+v = %q, want %q", v, got, want)
		}
	}
}

func TestVerdictReachesTheStatusBar(t *testing.T) {
	w := newWorld(t)
	_, tm := w.shell(t)
	enter(tm, "sleep 30")
	waitFor(t, tm, "watchdog: 1", "—")
	tm.Send(VerdictMsg{Status: "stuck", Confidence: 0.92, Streak: 1, Need: 2})
	waitFor(t, tm, "stuck 0.92 (1/2)")
	tm.Send(VerdictMsg{TaskID: "t99", Status: "progressing"}) // another task's: ignored
	tm.Send(VerdictMsg{TaskID: "t1", Status: "waiting"})
	waitFor(t, tm, "waiting for you")
}

func TestTypedWordsAreNotKeys(t *testing.T) {
	w := newWorld(t)
	m, tm := w.shell(t)
	enter(tm, "/help")
	waitFor(t, tm, "Ctrl+B")
	// bubbletea delivers "keep it up" as "keep", " ", "it", " ", "up":
	// the last chunk must stay text, not recall history.
	for _, chunk := range []string{"keep", " ", "it", " ", "up"} {
		if chunk == " " {
			tm.Send(tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}})
		} else {
			tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(chunk)})
		}
	}
	tm.Quit()
	tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second))
	if got := m.input.Value(); got != "keep it up" {
		t.Fatalf("input = %q", got)
	}
}

func TestSupervisorVerdictsReachTheStatusBar(t *testing.T) {
	w := newWorld(t)
	os.MkdirAll(filepath.Dir(w.userFile), 0o700)
	// Checks every 50 ms from the first second, so a verdict comes quickly.
	os.WriteFile(w.userFile, []byte("watchdog:\n  firstCheckMin: 0.01\n  intervalMin: 0.001\n"), 0o600)
	_, tm := w.shell(t)
	enter(tm, "sleep 30")
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		plain := ansi.Strip(string(b))
		return regexp.MustCompile(`▶ sleep 30 · \d+s │ (progressing|waiting for you|stuck|looping)`).MatchString(plain)
	}, teatest.WithDuration(20*time.Second))
}
