package tui

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The tests here drive the real shell in tmux, one per defect of issue 17.

// TestStatusBarShortensByPriority: at any width the bar ends in /help, is
// never cut inside a field, and marks what it left out with "…".
func TestStatusBarShortensByPriority(t *testing.T) {
	for _, w := range []int{120, 60, 40} {
		p := startPane(t, w, 12)
		p.idle()
		p.typeLine("echo running-$((1+1)); sleep 30")
		p.waitFor("running-2")
		rows := p.wait("the running command in the bar", func(rows []string) bool { return strings.Contains(bar(rows), "▶") })
		b := strings.TrimRight(bar(rows), " ")
		if !strings.HasSuffix(b, "/help") {
			t.Fatalf("%d columns: the bar does not end in /help: %q", w, b)
		}
		if frameWidth(bar(rows)) > w-1 {
			t.Fatalf("%d columns: the bar uses the last column: %q", w, bar(rows))
		}
		// Every field is whole or absent.
		for _, field := range []*regexp.Regexp{
			regexp.MustCompile(`action: ?\S*`), regexp.MustCompile(`bg: ?\S*( \S+)?`), regexp.MustCompile(`watchdog: ?\S*`),
		} {
			if m := field.FindString(b); m != "" && !regexp.MustCompile(`^(action: background|bg: 0( running)?|watchdog: 1)`).MatchString(m) {
				t.Fatalf("%d columns: a field is cut: %q in %q", w, m, b)
			}
		}
		if w == 120 && !strings.Contains(b, "action: background") {
			t.Fatalf("120 columns: the bar left out a field it has room for: %q", b)
		}
		if w < 120 && strings.Contains(b, "action: background") == strings.Contains(b, "…") {
			t.Fatalf("%d columns: a field left out must leave …: %q", w, b)
		}
		p.keys("C-c")
		p.idle()
	}
}

// TestNoColorKeepsReverseVideo: under NO_COLOR the bar has no colour but is
// still drawn in reverse video, so it does not read as output.
func TestNoColorKeepsReverseVideo(t *testing.T) {
	p := startPane(t, 80, 10, "NO_COLOR=1")
	p.idle()
	rows := p.captureEscapes()
	last := rows[len(rows)-1]
	if !strings.Contains(last, "\x1b[7m") {
		t.Fatalf("the bar under NO_COLOR has no reverse video: %q", last)
	}
	for _, sgr := range regexp.MustCompile(`\x1b\[([0-9;]*)m`).FindAllStringSubmatch(strings.Join(rows, "\n"), -1) {
		for _, param := range strings.Split(sgr[1], ";") {
			// 39 and 49 are the default colours: no colour at all.
			if param != "39" && param != "49" && regexp.MustCompile(`^(3[0-8]|4[0-8]|9[0-7]|10[0-7])$`).MatchString(param) {
				t.Fatalf("a colour (%q) under NO_COLOR:\n%q", sgr[0], strings.Join(rows, "\n"))
			}
		}
	}
}

// TestHiddenInputIsMasked: while the command's terminal has echo off (read
// -s), what is typed is shown as dots, and the answer reaches it, never the
// shell's notices or history.
func TestHiddenInputIsMasked(t *testing.T) {
	p := startPane(t, 80, 12)
	p.idle()
	p.typeLine(`read -s -p 'Pass''word: ' pw; echo; echo "got ${#pw} chars"; read -p 'Na''me: ' n; echo "hi $n"`)
	p.waitFor("Password:", "hidden input")
	p.typeText("/hunter2")
	rows := p.waitFor("••••••••")
	if strings.Contains(strings.Join(rows, "\n"), "hunter2") {
		t.Fatalf("hidden input shown:\n%s", strings.Join(rows, "\n"))
	}
	p.keys("Enter")
	// Even starting with "/", the hidden line is the command's.
	p.waitFor("got 8 chars", "Name:")
	// Echo is back on: what is typed shows again.
	p.wait("visible input again", func(rows []string) bool {
		return !strings.Contains(strings.Join(rows, "\n"), "hidden")
	})
	p.typeText("world")
	p.waitFor("» world")
	p.keys("Enter")
	rows = p.waitFor("hi world")
	if strings.Contains(strings.Join(rows, "\n"), "hunter2") {
		t.Fatalf("hidden input shown:\n%s", strings.Join(rows, "\n"))
	}
	if hist, _ := os.ReadFile(filepath.Join(p.home, "shell_history")); strings.Contains(string(hist), "hunter2") {
		t.Fatalf("hidden input in the history:\n%s", hist)
	}
}

// TestLogViewKillAsks: x in a task's log view asks y/n, as /bg does; n
// keeps the task, y kills it.
func TestLogViewKillAsks(t *testing.T) {
	p := startPane(t, 100, 16)
	p.idle()
	p.typeLine("echo log-$((2+3)); sleep 120")
	p.waitFor("log-5")
	p.keys("C-b")
	p.idle()
	p.typeLine("/logs t1")
	p.waitFor("t1 · echo", "log-5")
	p.typeText("x")
	p.waitFor("kill t1 and everything it started? y/n")
	if st := p.taskState("t1"); st != "running" {
		t.Fatalf("x killed t1 without asking: %s", st)
	}
	p.typeText("n")
	p.wait("the question gone", func(rows []string) bool { return !strings.Contains(strings.Join(rows, "\n"), "y/n") })
	if st := p.taskState("t1"); st != "running" {
		t.Fatalf("n killed t1: %s", st)
	}
	p.typeText("x")
	p.waitFor("y/n")
	p.typeText("y")
	p.waitFor("sleep 120 · killed")
	if st := p.taskState("t1"); st != "killed" {
		t.Fatalf("y left t1 %s", st)
	}
}

// TestNoticesStayInTheScrollback: a background task that ends while the
// person works leaves its notice in the scrollback, after the next command
// too, and /events lists it; kills are worded as such, never "killed 0".
func TestNoticesStayInTheScrollback(t *testing.T) {
	p := startPane(t, 120, 30)
	p.idle()
	p.typeLine("echo a-$((1+1)); sleep 1; echo done")
	p.waitFor("a-2")
	p.keys("C-b")
	p.idle()
	// t2 catches SIGTERM and exits 0; t3 dies of it.
	p.typeLine("trap 'exit 0' TERM; echo b-$((1+2)); sleep 100 & wait")
	p.waitFor("b-3")
	p.keys("C-b")
	p.idle()
	p.typeLine("echo c-$((1+3)); sleep 100")
	p.waitFor("c-4")
	p.keys("C-b")
	p.idle()
	p.waitFor("t1 exited 0 after")
	p.typeLine("/kill t2")
	p.waitFor("t2 killed, exited 0 after")
	p.typeLine("/kill t3")
	p.waitFor("t3 killed by SIGTERM after")
	// The notices outlive the next command.
	p.typeLine("echo d-$((1+4)); sleep 1; echo e-$((1+5))")
	p.waitFor("d-5")
	p.waitFor("e-6")
	p.idle()
	p.typeLine("echo next-$((2*4))")
	rows := p.waitFor("next-8")
	all := strings.Join(rows, "\n")
	for _, want := range []string{"· t1 exited 0 after", "· t2 killed, exited 0 after", "· t3 killed by SIGTERM after"} {
		if !strings.Contains(all, want) {
			t.Fatalf("the notice %q is gone from the scrollback:\n%s", want, all)
		}
	}
	if regexp.MustCompile(`killed \d`).MatchString(all) {
		t.Fatalf("a kill worded as an exit code:\n%s", all)
	}
	p.typeLine("/clear")
	p.typeLine("/events")
	p.waitFor("events", "t1 exited 0 after", "t2 killed, exited 0", "t3 killed by SIGTERM", "t1 detached")
}

// TestTerminalRestoredAfterFullScreen: top (which draws without the
// alternate screen), Ctrl+B out of it, and /quit leave neither top's frame
// nor its modes behind, in the shell or on the screen the person returns to.
func TestTerminalRestoredAfterFullScreen(t *testing.T) {
	p := startPane(t, 100, 24)
	p.idle()
	noTop := func(what string, rows []string) {
		t.Helper()
		if all := strings.Join(rows, "\n"); strings.Contains(all, "load average") || strings.Contains(all, "PID USER") {
			t.Fatalf("%s: top's frame is still on screen:\n%s", what, all)
		}
	}
	p.typeLine("top -d 0.2")
	p.waitFor("load average")
	p.typeText("q")
	noTop("after q", p.idle())
	p.typeLine("top -d 0.2")
	p.waitFor("load average")
	p.keys("C-b")
	p.waitFor("keeps running in the background")
	rows := p.idle()
	noTop("after Ctrl+B", rows)
	p.typeLine("/quit")
	rows = p.waitFor("HANGDOG-EXITED-0")
	noTop("after /quit", rows)
	if strings.TrimSpace(rows[0]) != "HANGDOG-EXITED-0" {
		t.Fatalf("after /quit the screen is not the one the shell started on:\n%s", strings.Join(rows, "\n"))
	}
	modes := strings.TrimSpace(p.tmux("display", "-p", "-t", "0", "alt=#{alternate_on} cursor=#{cursor_flag} keys=#{keypad_cursor_flag} y=#{cursor_y}"))
	if modes != "alt=0 cursor=1 keys=0 y=1" {
		t.Fatalf("terminal modes after /quit: %s", modes)
	}
}

// TestSettingsAtSixtyColumns: the table keeps SOURCE and ALLOWED at 60
// columns, and correcting a refused value clears the refusal at once.
func TestSettingsAtSixtyColumns(t *testing.T) {
	p := startPane(t, 60, 20)
	p.idle()
	p.typeLine("/settings")
	rows := p.waitFor("hangdog settings", "SOURCE", "ALLOWED")
	p.checkFrame(rows, "/settings")
	for _, r := range rows {
		if strings.Contains(r, "watchdog.enabled ") && !(strings.Contains(r, "default") && strings.Contains(r, "true or")) {
			t.Fatalf("a row without its source or what it allows: %q", r)
		}
	}
	for range 3 { // watchdog.confidence
		p.keys("Down")
	}
	p.waitFor("▶ watchdog.confidence")
	p.keys("C-u")
	p.typeText("1.7")
	p.waitFor("1.7 ✗")
	p.keys("C-s")
	p.waitFor("not saved: watchdog.confidence 1.7")
	p.keys("BSpace", "BSpace", "BSpace")
	p.typeText("0.7")
	p.wait("the refusal gone", func(rows []string) bool {
		all := strings.Join(rows, "\n")
		return strings.Contains(all, "0.7 *") && !strings.Contains(all, "not saved")
	})
	p.keys("C-s")
	p.waitFor("saved 1 change(s)")
}

// TestRawModeInputIsNotMasked: a REPL with line editing turns echo off to
// echo by itself; its input is not a secret.
func TestRawModeInputIsNotMasked(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	p := startPane(t, 80, 12)
	p.idle()
	p.typeLine("python3 -q")
	p.waitFor(">>>")
	p.typeText("6*7")
	rows := p.waitFor("» 6*7")
	if strings.Contains(strings.Join(rows, "\n"), "hidden") {
		t.Fatalf("a REPL's input is masked:\n%s", strings.Join(rows, "\n"))
	}
	p.keys("Enter")
	p.waitFor("42")
	p.keys("C-d")
	p.idle()
}
