package tui

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The features of issue 17, each driven in the real shell in tmux.

func TestSearchTheScrollback(t *testing.T) {
	p := startPane(t, 80, 20)
	p.idle()
	p.typeLine(`seq -f 'row-%g' 3000 | sed -e 's/^row-1000$/needle alpha here/' -e 's/^row-2000$/needle beta here/'`)
	p.waitFor("row-3000")
	p.idle()
	p.keys("C-f")
	p.waitFor("find:")
	p.typeText("needle")
	// The command line typed above matches too.
	rows := p.waitFor("needle beta here", "3 matching line(s)")
	if strings.Contains(strings.Join(rows, "\n"), "row-3000") {
		t.Fatalf("the view did not move to the match:\n%s", strings.Join(rows, "\n"))
	}
	p.checkFrame(rows, "searching")
	// The current match is highlighted: bold, underline and reverse video.
	esc := p.captureEscapes()
	hl := false
	for _, r := range esc {
		if strings.Contains(r, "needle beta") || regexp.MustCompile(`\x1b\[[0-9;]*7[0-9;]*m(\x1b\[[0-9;]*m)*needle`).MatchString(r) {
			hl = hl || regexp.MustCompile(`\x1b\[[0-9;]*7[0-9;]*m(\x1b\[[0-9;]*m)*needle`).MatchString(r)
		}
	}
	if !hl {
		t.Fatalf("the match is not highlighted:\n%q", strings.Join(esc, "\n"))
	}
	p.keys("Up") // older
	p.waitFor("needle alpha here")
	p.keys("Down") // newer
	p.waitFor("needle beta here")
	p.keys("Escape")
	rows = p.waitFor("row-3000")
	if strings.Contains(strings.Join(rows, "\n"), "find:") {
		t.Fatalf("Esc left the search open:\n%s", strings.Join(rows, "\n"))
	}
	// Home and End on an empty prompt: the oldest line kept, the newest.
	p.keys("Home")
	p.waitFor("row-1\n", "↑")
	p.keys("End")
	p.waitFor("row-3000")
}

func TestMouseWheelScrolls(t *testing.T) {
	p := startPane(t, 80, 20)
	p.idle()
	p.typeLine(`seq -f 'wheel-%g' 500`)
	p.waitFor("wheel-500")
	p.idle()
	// An SGR mouse report for a wheel-up notch at column 10, row 5, as
	// tmux would pass one on.
	for range 10 {
		p.tmux("send-keys", "-t", "0", "-H", "1b", "5b", "3c", "36", "34", "3b", "31", "30", "3b", "35", "4d")
	}
	rows := p.wait("the output scrolled by the wheel", func(rows []string) bool {
		all := strings.Join(rows, "\n")
		return !strings.Contains(all, "wheel-500") && strings.Contains(bar(rows), "↑")
	})
	p.checkFrame(rows, "scrolled")
	p.keys("End")
	p.waitFor("wheel-500")
}

func TestHistorySearch(t *testing.T) {
	p := startPane(t, 100, 16)
	p.idle()
	for _, c := range [][2]string{{"echo alpha-$((1))", "alpha-1"}, {"echo beta-$((2))", "beta-2"}, {"echo alpha-$((3))", "alpha-3"}} {
		p.typeLine(c[0])
		p.waitFor(c[1] + "\n")
		p.idle()
	}
	p.keys("C-r")
	p.typeText("alpha")
	p.waitFor("history: alpha", "→ echo alpha-$((3))")
	p.keys("C-r")
	p.waitFor("→ echo alpha-$((1))")
	p.keys("Enter")
	p.wait("the entry on the prompt", func(rows []string) bool {
		return strings.HasSuffix(strings.TrimRight(rows[len(rows)-2], " "), "❯ echo alpha-$((1))")
	})
	p.keys("Enter")
	p.wait("the entry run again", func(rows []string) bool {
		return strings.Count(strings.Join(rows, "\n"), "alpha-1\n") == 2 && strings.Contains(bar(rows), "idle")
	})
}

func TestCtrlCHintsAtTheSecond(t *testing.T) {
	p := startPane(t, 100, 16)
	p.idle()
	p.typeLine("trap '' INT; echo ig$((1))nored; sleep 60")
	p.waitFor("ig1nored")
	p.keys("C-c")
	p.waitFor("Ctrl+C again within a second kills it")
	p.keys("C-c")
	p.waitFor("killed by SIGKILL")
	p.idle()
}

func TestHelpIsAnOverlay(t *testing.T) {
	p := startPane(t, 100, 30)
	p.idle()
	p.typeLine("echo under-$((1+1))")
	p.waitFor("under-2")
	p.typeLine("/help")
	rows := p.waitFor("┌", "search the output", "/events")
	p.checkFrame(rows, "/help")
	p.keys("Escape")
	rows = p.wait("the overlay gone", func(rows []string) bool {
		return !strings.Contains(strings.Join(rows, "\n"), "search the output")
	})
	if !strings.Contains(strings.Join(rows, "\n"), "under-2") {
		t.Fatalf("the output under the overlay is gone:\n%s", strings.Join(rows, "\n"))
	}
	// Nothing of it went to the scrollback.
	p.keys("Home")
	rows = p.waitFor("under-2")
	if strings.Contains(strings.Join(rows, "\n"), "search the output") {
		t.Fatalf("/help wrote into the scrollback:\n%s", strings.Join(rows, "\n"))
	}
}

func TestTabCompletesPathsAndCommands(t *testing.T) {
	bin := t.TempDir()
	os.WriteFile(filepath.Join(bin, "hdzq-unique-tool"), []byte("#!/bin/sh\necho tool-ran-$((1+1))\n"), 0o755)
	p := startPane(t, 100, 16, "PATH="+bin+":"+os.Getenv("PATH"))
	os.MkdirAll(filepath.Join(p.dir, "subdir-xyz"), 0o755)
	os.WriteFile(filepath.Join(p.dir, "subdir-xyz", "file-abc.txt"), []byte("contents-of-abc\n"), 0o644)
	p.idle()
	p.typeText("hdzq-uni")
	p.keys("Tab")
	p.waitFor("❯ hdzq-unique-tool")
	p.typeText("; cat subd")
	p.keys("Tab")
	p.waitFor("; cat subdir-xyz/")
	p.typeText("fi")
	p.keys("Tab")
	p.waitFor("; cat subdir-xyz/file-abc.txt")
	p.keys("Enter")
	p.waitFor("tool-ran-2", "contents-of-abc")
}

func TestCompleteLine(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"alpha", "alps", "beta"} {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
	}
	os.WriteFile(filepath.Join(dir, "alpha", "one.txt"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, ".hidden"), nil, 0o644)
	for _, c := range []struct {
		in, out string
		cands   []string
	}{
		{"ls al", "ls alp", []string{"alpha/", "alps/"}},
		{"ls alph", "ls alpha/", nil},
		{"ls alpha/o", "ls alpha/one.txt ", nil},
		{"ls .h", "ls .hidden ", nil},
		{"ls zz", "ls zz", nil},
		{"cat " + dir + "/be", "cat " + dir + "/beta/", nil},
		{"/kill t", "/kill t1 ", nil},
		{"/b", "/bg", []string{"/bg", "/bg-detach"}},
		{"./alph", "./alpha/", nil},
	} {
		out, cands := completeLine(c.in, []string{"t1"}, dir)
		if out != c.out || !slices.Equal(cands, c.cands) {
			t.Errorf("completeLine(%q) = %q %q, want %q %q", c.in, out, cands, c.out, c.cands)
		}
	}
}
