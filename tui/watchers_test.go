package tui

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// /watch lists the home's watchers, made by the real `hangdog watch
// create`, with kind, state, fires used and why one paused; the bar counts
// the active ones and follows a pause.
func TestWatchListsWatchersAndTheBarCountsThem(t *testing.T) {
	p := startPane(t, 120, 24)
	p.idle()
	if strings.Contains(bar(p.capture()), "watch:") {
		t.Fatalf("a bar with no watchers counts some: %q", bar(p.capture()))
	}
	a, b := filepath.Join(p.dir, "a.txt"), filepath.Join(p.dir, "b.txt")
	for _, f := range []string{a, b} {
		if err := os.WriteFile(f, []byte("one"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := p.hangdog("watch", "create", "--kind", "file", a, "--interval", "1m"); err != nil {
		t.Fatalf("watch create a: %v %s", err, out)
	}
	if out, err := p.hangdog("watch", "create", "--kind", "file", b, "--interval", "1s", "--max-fires", "1"); err != nil {
		t.Fatalf("watch create b: %v %s", err, out)
	}
	p.wait("the bar to count two watchers", func(rows []string) bool { return strings.Contains(bar(rows), "watch: 2 active") })

	// One fire spends w2's budget: it pauses, saying why, and the bar
	// counts one.
	waitLog(p, "watching")
	if err := os.WriteFile(b, []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	p.wait("the bar to count one after w2 paused", func(rows []string) bool { return strings.Contains(bar(rows), "watch: 1 active") })

	p.typeLine("/watch")
	rows := p.waitFor("watchers — 2", "w1", "w2", "paused: used all 1 fires (max_fires)")
	all := strings.Join(rows, "\n")
	for _, re := range []string{`w1\s+file\s+active\s+0/20\s+\d\d:\d\d:\d\d`, `w2\s+file\s+paused\s+1/1\s+\d\d:\d\d:\d\d`} {
		if !regexp.MustCompile(re).MatchString(all) {
			t.Fatalf("/watch lacks %s:\n%s", re, all)
		}
	}
	p.typeLine("/watchers")
	p.wait("/watchers to list them again", func(rows []string) bool {
		return strings.Count(strings.Join(rows, "\n"), "watchers — 2") == 2
	})
}

// waitLog waits until w2's task log says s: its runner has taken the
// baseline and watches, so the next write is a change it sees.
func waitLog(p *pane, s string) {
	p.t.Helper()
	p.wait("w2's runner to log "+s, func([]string) bool {
		out, _ := p.hangdog("watch", "show", "w2", "--json")
		m := regexp.MustCompile(`"task_id":"(t\d+)"`).FindStringSubmatch(out)
		if m == nil {
			return false
		}
		logs, _ := p.hangdog("bg", "logs", m[1])
		return strings.Contains(logs, s)
	})
}
