package watch

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
)

func rss(guids ...string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>`)
	for _, g := range guids {
		fmt.Fprintf(&b, `<item><title>post %s</title><guid>%s</guid></item>`, g, g)
	}
	b.WriteString(`</channel></rss>`)
	return b.String()
}

func atom(ids ...string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>t</title>`)
	for _, id := range ids {
		fmt.Fprintf(&b, `<entry><title>entry %s</title><id>urn:%s</id><link href="http://x/%s"/></entry>`, id, id, id)
	}
	b.WriteString(`</feed>`)
	return b.String()
}

func firedKeys(t *testing.T, s *Store, id string) map[string]int {
	seen := map[string]int{}
	for _, e := range events(t, s, id, bgtasks.EventWatchFired) {
		for _, line := range strings.Split(e.Payload, "\n")[1:] {
			if i := strings.LastIndex(line, "("); i >= 0 {
				seen[strings.TrimSuffix(line[i+1:], ")")]++
			}
		}
	}
	return seen
}

// Each new item fires once, also when the watcher process is killed -9 and
// started again: the keys it reported are on disk.
func TestRSSNewItemsFireOnceAcrossKill9(t *testing.T) {
	s := newStore(t)
	p := &page{status: 200, body: rss("a", "b")}
	c := create(t, s, &Request{Kind: KindRSS, Target: serve(t, p)}, "o")
	if c.Baseline != "currently 2 items" {
		t.Fatalf("baseline %q", c.Baseline)
	}
	id := c.Spec.ID
	setSpec(t, s, id, func(sp *Spec) { sp.Interval = 100 * time.Millisecond })
	run := func() *os.Process {
		cmd := helper(t, s.reg.Home(), "run", id)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd.Process
	}
	proc := run()
	p.set(200, rss("c", "a", "b"), "")
	waitFor(t, "item c", 10*time.Second, func() bool { return firedKeys(t, s, id)["c"] == 1 })
	_ = proc.Signal(syscall.SIGKILL)
	_, _ = proc.Wait()
	p.set(200, rss("d", "c", "a", "b"), "")
	proc = run()
	waitFor(t, "item d", 10*time.Second, func() bool { return firedKeys(t, s, id)["d"] == 1 })
	time.Sleep(500 * time.Millisecond) // several more checks of the same feed
	_ = proc.Signal(syscall.SIGKILL)
	_, _ = proc.Wait()
	keys := firedKeys(t, s, id)
	if len(keys) != 2 || keys["c"] != 1 || keys["d"] != 1 {
		t.Fatalf("fired keys %v: want c and d once each, a and b (the baseline) never", keys)
	}
}

func TestAtomEntriesKeyedByID(t *testing.T) {
	s := newStore(t)
	p := &page{status: 200, body: atom("1")}
	c := create(t, s, &Request{Kind: KindRSS, Target: serve(t, p)}, "o")
	r := &Runner{Store: s, ID: c.Spec.ID}
	p.set(200, atom("2", "1"), "")
	tick(t, r)
	p.set(200, atom("3", "2"), "") // 1 dropped off the feed: not news
	tick(t, r)
	keys := firedKeys(t, s, c.Spec.ID)
	if len(keys) != 2 || keys["urn:2"] != 1 || keys["urn:3"] != 1 {
		t.Fatalf("fired %v, want urn:2 and urn:3 once", keys)
	}
}

// The command contract: {"outcome","payload","cursor"} on stdout, the
// previous cursor as JSON in HANGDOG_WATCH_CURSOR.
func TestCommandCursorRoundTrip(t *testing.T) {
	s := newStore(t)
	dir := t.TempDir()
	seen := filepath.Join(dir, "cursors")
	// The command counts in its cursor and reports activity on even counts.
	script := `c=$(printf '%s' "$HANGDOG_WATCH_CURSOR" | python3 -c 'import json,sys; v=json.load(sys.stdin); print(0 if v is None else v["n"])')
printf '%s\n' "$HANGDOG_WATCH_CURSOR" >> ` + seen + `
n=$((c+1))
if [ $((n % 2)) -eq 0 ]; then o=activity; else o=idle; fi
printf '{"outcome":"%s","payload":"count %d","cursor":{"n":%d}}\n' $o $n $n`
	c := create(t, s, &Request{Kind: KindCommand, Target: script}, "o")
	r := &Runner{Store: s, ID: c.Spec.ID}
	for range 4 {
		tick(t, r)
	}
	b, _ := os.ReadFile(seen)
	want := "null\n{\"n\":1}\n{\"n\":2}\n{\"n\":3}\n{\"n\":4}\n"
	if string(b) != want {
		t.Fatalf("cursors the command was given:\n%s\nwant:\n%s", b, want)
	}
	fired := events(t, s, c.Spec.ID, bgtasks.EventWatchFired)
	if len(fired) != 2 || !strings.HasSuffix(fired[0].Payload, "count 2") || !strings.HasSuffix(fired[1].Payload, "count 4") {
		t.Fatalf("fires %+v: want activity at counts 2 and 4", fired)
	}
	var cur map[string]int
	if err := json.Unmarshal(state(t, s, c.Spec.ID).Cursor, &cur); err != nil || cur["n"] != 5 {
		t.Errorf("stored cursor %v (%v), want n=5", cur, err)
	}
}

func TestCommandFailuresAreIdleUnlessStrict(t *testing.T) {
	s := newStore(t)
	flag := filepath.Join(t.TempDir(), "mode")
	writeFile(t, flag, "ok")
	script := `case $(cat ` + flag + `) in
ok) echo '{"outcome":"idle","cursor":1}';;
fail) echo oops >&2; exit 3;;
junk) echo 'not json';;
slow) sleep 5;;
esac`
	loose := create(t, s, &Request{Kind: KindCommand, Target: script, TimeoutSeconds: 0.5}, "o")
	strict := create(t, s, &Request{Kind: KindCommand, Target: script, TimeoutSeconds: 0.5, Strict: true}, "o")
	for _, mode := range []string{"fail", "junk", "slow"} {
		writeFile(t, flag, mode)
		start := time.Now()
		tick(t, &Runner{Store: s, ID: loose.Spec.ID})
		if mode == "slow" && time.Since(start) > 3*time.Second {
			t.Errorf("the timeout did not stop the command (%v)", time.Since(start))
		}
		tick(t, &Runner{Store: s, ID: strict.Spec.ID})
	}
	ls := state(t, s, loose.Spec.ID)
	if ls.QuietChecks != 3 || ls.Errors != 0 || ls.Paused || string(ls.Cursor) != "1" {
		t.Errorf("loose: %+v; want three idle polls keeping the cursor", ls)
	}
	ss := state(t, s, strict.Spec.ID)
	if !ss.Paused || ss.Errors != 3 || !strings.Contains(ss.Reason, "timed out") {
		t.Errorf("strict: %+v; want three errors reported and an auto-pause naming the last", ss)
	}
	if !strings.Contains(strings.Join([]string{ss.Reason, ss.LastError}, " "), "command watcher") {
		t.Errorf("strict reason %q should say what failed", ss.Reason)
	}
}

func TestCommandTerminalFiresAndPauses(t *testing.T) {
	s := newStore(t)
	flag := filepath.Join(t.TempDir(), "done")
	script := `if [ -e ` + flag + ` ]; then echo '{"outcome":"terminal","payload":{"result":"green"}}'; else echo '{"outcome":"idle"}'; fi`
	c := create(t, s, &Request{Kind: KindCommand, Target: script}, "o")
	r := &Runner{Store: s, ID: c.Spec.ID}
	tick(t, r)
	writeFile(t, flag, "")
	if !tick(t, r) {
		t.Fatal("a terminal outcome did not stop the watcher")
	}
	fired := events(t, s, c.Spec.ID, bgtasks.EventWatchFired)
	if len(fired) != 1 || !strings.Contains(fired[0].Payload, `{"result":"green"}`) {
		t.Fatalf("fires %+v", fired)
	}
}

func TestProcessAliveDead(t *testing.T) {
	s := newStore(t)
	cmd := helperSleep(t)
	c := create(t, s, &Request{Kind: KindProcess, Target: fmt.Sprintf("pid:%d", cmd.Process.Pid)}, "o")
	if c.Baseline != "currently alive" {
		t.Fatalf("baseline %q", c.Baseline)
	}
	pidfile := filepath.Join(t.TempDir(), "x.pid")
	writeFile(t, pidfile, fmt.Sprint(cmd.Process.Pid))
	byFile := create(t, s, &Request{Kind: KindProcess, Target: "pidfile:" + pidfile}, "o")
	r := &Runner{Store: s, ID: c.Spec.ID}
	tick(t, r)
	_ = cmd.Process.Kill()
	_, _ = cmd.Process.Wait()
	tick(t, r)
	tick(t, &Runner{Store: s, ID: byFile.Spec.ID})
	for _, id := range []string{c.Spec.ID, byFile.Spec.ID} {
		fired := events(t, s, id, bgtasks.EventWatchFired)
		if len(fired) != 1 || !strings.Contains(fired[0].Reason, "now dead") {
			t.Errorf("%s fires %+v: want one saying it is dead", id, fired)
		}
	}
}

func helperSleep(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _, _ = cmd.Process.Wait() })
	return cmd
}

func TestProcessByName(t *testing.T) {
	s := newStore(t)
	name := fmt.Sprintf("hdw%d", time.Now().UnixNano()%1e9)
	bin := filepath.Join(t.TempDir(), name)
	b, err := os.ReadFile("/bin/sleep")
	if err != nil {
		t.Skip("no /bin/sleep to copy:", err)
	}
	if err := os.WriteFile(bin, b, 0o700); err != nil {
		t.Fatal(err)
	}
	c := create(t, s, &Request{Kind: KindProcess, Target: "name:" + name}, "o")
	if c.Baseline != "currently dead" {
		t.Fatalf("baseline %q before it runs", c.Baseline)
	}
	r := &Runner{Store: s, ID: c.Spec.ID}
	cmd := exec.Command(bin, "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _, _ = cmd.Process.Wait() })
	tick(t, r)
	fired := events(t, s, c.Spec.ID, bgtasks.EventWatchFired)
	if len(fired) != 1 || !strings.Contains(fired[0].Reason, "now alive") || !strings.Contains(fired[0].Payload, fmt.Sprint(cmd.Process.Pid)) {
		t.Fatalf("fires %+v: want one saying it is alive, with its pid", fired)
	}
}

// A command watcher's check ends with its whole process tree: a child in
// the background, one in a session of its own (setsid) and a daemon
// double-forked out of one, each holding stdout or not, are gone when the
// check returns — at create (the baseline) and at every tick — and the
// check's answer is not held up by a descendant keeping its stdout open.
func TestCommandCheckEndsItsWholeProcessTree(t *testing.T) {
	s := newStore(t)
	dir := t.TempDir()
	pids := filepath.Join(dir, "pids")
	script := `sleep 300 & echo $! >> ` + pids + `
setsid sleep 301 & echo $! >> ` + pids + `
setsid bash -c 'sleep 302 </dev/null >/dev/null 2>&1 & echo $! >> ` + pids + `' </dev/null >/dev/null 2>&1
setsid sleep 303 >/dev/null 2>&1 </dev/null & echo $! >> ` + pids + `
echo '{"outcome":"idle"}'`
	leftovers := func(when string) {
		t.Helper()
		b, err := os.ReadFile(pids)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Fields(string(b))
		if len(lines) != 4 {
			t.Fatalf("%s: the command recorded %d pids, want 4: %q", when, len(lines), b)
		}
		for _, l := range lines {
			pid, _ := strconv.Atoi(l)
			if !bgtasks.ProcGone(pid, 0) {
				cmdline, _ := os.ReadFile("/proc/" + l + "/cmdline")
				t.Errorf("%s: pid %s (%q) outlived its check", when, l, cmdline)
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		os.Remove(pids)
	}
	start := time.Now()
	c := create(t, s, &Request{Kind: KindCommand, Target: script}, "o")
	if d := time.Since(start); d > 900*time.Millisecond {
		t.Errorf("create took %v: the check waited on a descendant holding its stdout", d)
	}
	leftovers("after create")
	r := &Runner{Store: s, ID: c.Spec.ID}
	for i := range 2 {
		tick(t, r)
		leftovers(fmt.Sprintf("after tick %d", i+1))
	}
}
