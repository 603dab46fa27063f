package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// watchers.maxActivePerOwner set to 2: the third create of one session is
// refused naming the setting, and writes nothing; another session, and the
// default of 10, still allow it.
func TestWatchSettingMaxActivePerOwner(t *testing.T) {
	e := newEnv(t)
	e.extra = append(e.extra, "HANGDOG_SESSION=s1", "HANGDOG_WATCHERS_MAXACTIVEPEROWNER=2")
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, id := range []string{"w1", "w2", "w3", "w4"} {
			e.run("watch", "rm", id)
			e.runEnv([]string{"HANGDOG_SESSION=s2"}, "watch", "rm", id)
		}
	})
	for i := range 2 {
		if r := e.run("watch", "create", "--kind", "file", path, "--interval", "1m"); r.code != 0 {
			t.Fatalf("create %d: %+v", i+1, r)
		}
	}
	third := e.run("watch", "create", "--kind", "file", path, "--interval", "1m")
	if third.code == 0 || !strings.Contains(third.stderr, "at most 2 active watchers per owner (watchers.maxActivePerOwner)") {
		t.Fatalf("third create under maxActivePerOwner 2: %+v, want it refused naming the setting", third)
	}
	if ls := e.run("watch", "ls").stdout; strings.Contains(ls, "w3") {
		t.Fatalf("the refused create wrote a watcher:\n%s", ls)
	}
	if r := e.runEnv([]string{"HANGDOG_SESSION=s2"}, "watch", "create", "--kind", "file", path, "--interval", "1m"); r.code != 0 {
		t.Fatalf("another session's create: %+v", r)
	}
	// Without the setting the built-in 10 applies: s1's third is allowed.
	c := *e
	c.extra = []string{"HANGDOG_SESSION=s1"}
	if r := c.run("watch", "create", "--kind", "file", path, "--interval", "1m"); r.code != 0 {
		t.Fatalf("third create with the default limit: %+v", r)
	}
}

// watchers.maxFires is the budget of a watcher created without
// --max-fires; --max-fires still wins. A bad value is refused with the
// key and what is allowed (as a warning: watch commands keep going, as
// the run paths do, with the built-in value).
func TestWatchSettingMaxFiresAndBadValues(t *testing.T) {
	e := newEnv(t)
	e.extra = append(e.extra, "HANGDOG_WATCHERS_MAXFIRES=3")
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, id := range []string{"w1", "w2", "w3"} {
			e.run("watch", "rm", id)
		}
	})
	if r := e.run("watch", "create", "--kind", "file", path, "--interval", "1m"); r.code != 0 {
		t.Fatalf("create: %+v", r)
	}
	if r := e.run("watch", "create", "--kind", "file", path, "--interval", "1m", "--max-fires", "7"); r.code != 0 {
		t.Fatalf("create --max-fires 7: %+v", r)
	}
	ls := e.run("watch", "ls").stdout
	if !strings.Contains(ls, "0/3") || !strings.Contains(ls, "0/7") {
		t.Fatalf("watch ls, want budgets 0/3 (the setting) and 0/7 (the flag):\n%s", ls)
	}
	bad := e.runEnv([]string{"HANGDOG_WATCHERS_MAXFIRES=0"}, "watch", "create", "--kind", "file", path, "--interval", "1m")
	if !strings.Contains(bad.stderr, "HANGDOG_WATCHERS_MAXFIRES") || !strings.Contains(bad.stderr, "a whole number from 1 to 100") {
		t.Fatalf("HANGDOG_WATCHERS_MAXFIRES=0: %+v, want it refused with what is allowed", bad)
	}
	if ls := e.run("watch", "ls").stdout; !strings.Contains(ls, "0/20") {
		t.Fatalf("the bad value was not left out for the built-in 20:\n%s", ls)
	}
	set := e.run("config", "set", "watchers.maxActivePerOwner", "1000")
	if set.code == 0 || !strings.Contains(set.stderr, "watchers.maxActivePerOwner") || !strings.Contains(set.stderr, "a whole number from 1 to 100") {
		t.Fatalf("config set watchers.maxActivePerOwner 1000: %+v, want it refused", set)
	}
}

// watchers.networkIntervalFloorSec: an http watcher's --interval 5s is
// refused at the built-in floor of a minute, naming the setting, and
// allowed once the user lowers it.
func TestWatchSettingNetworkIntervalFloor(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("hello")) }))
	defer srv.Close()
	e := newEnv(t)
	t.Cleanup(func() { e.run("watch", "rm", "w1") })
	r := e.run("watch", "create", "--kind", "http", srv.URL, "--interval", "5s")
	if r.code == 0 || !strings.Contains(r.stderr, "use at least 1m0s for kind http (watchers.networkIntervalFloorSec") {
		t.Fatalf("http --interval 5s at the default floor: %+v, want it refused naming the setting", r)
	}
	r = e.runEnv([]string{"HANGDOG_WATCHERS_NETWORKINTERVALFLOORSEC=5"}, "watch", "create", "--kind", "http", srv.URL, "--interval", "5s")
	if r.code != 0 || !strings.Contains(r.stdout, "currently") {
		t.Fatalf("http --interval 5s with the floor at 5: %+v", r)
	}
}
