package settings

import (
	"path/filepath"
	"strings"
	"testing"
)

// Every watchers.* key reaches Watchers(): an alternative value set by a
// flag comes out as that value, not the default.
func TestWatchersKeysReachWatchers(t *testing.T) {
	flags := map[string]string{}
	for _, k := range Keys() {
		if strings.HasPrefix(k.Key, "watchers.") {
			flags[k.Key] = alternatives[k.Key]
		}
	}
	if len(flags) != 7 {
		t.Fatalf("%d watchers.* keys, want 7 (add the new one here and to Watchers)", len(flags))
	}
	got := layers{flags: flags}.load(t)
	if got.err != nil {
		t.Fatal(got.err)
	}
	want := Watchers{MaxActivePerOwner: 2, MaxFires: 5, MaxWakesPerHour: 30, GraceChecks: 2, MaxErrors: 9, JudgeFailures: 4, NetworkIntervalFloorSec: 5}
	if w := got.settings.Watchers(); w != want {
		t.Errorf("Watchers() = %+v, want %+v", w, want)
	}
	def := layers{}.load(t)
	if w := def.settings.Watchers(); w != (Watchers{MaxActivePerOwner: 10, MaxFires: 20, MaxWakesPerHour: 12, GraceChecks: 5, MaxErrors: 3, JudgeFailures: 3, NetworkIntervalFloorSec: 60}) {
		t.Errorf("default Watchers() = %+v, want the built-in limits", w)
	}
}

func TestWatchersKeysRefuseBadValues(t *testing.T) {
	for _, c := range []struct{ key, text, allowed string }{
		{"watchers.maxActivePerOwner", "0", "a whole number from 1 to 100"},
		{"watchers.maxActivePerOwner", "2.5", "a whole number from 1 to 100"},
		{"watchers.maxFires", "101", "a whole number from 1 to 100"},
		{"watchers.maxWakesPerHour", "61", "a whole number from 1 to 60"},
		{"watchers.graceChecks", "many", "a whole number from 1 to 100"},
		{"watchers.maxErrors", "-1", "a whole number from 1 to 100"},
		{"watchers.judgeFailures", "0", "a whole number from 1 to 20"},
		{"watchers.judgeFailures", "21", "a whole number from 1 to 20"},
		{"watchers.networkIntervalFloorSec", "0.5", "a number of seconds from 1 to 3600"},
	} {
		if _, err := Validate(c.key, c.text); err == nil || !strings.Contains(err.Error(), c.key) || !strings.Contains(err.Error(), c.allowed) {
			t.Errorf("Validate(%s, %q) = %v, want it refused naming the key and %q", c.key, c.text, err, c.allowed)
		}
	}
}

// A cloned repository must not raise how many watchers an agent keeps or
// how often they ask other servers; it may tune the rest.
func TestWatchersUserOnlyKeysAreRefusedInAProjectFile(t *testing.T) {
	for _, c := range []struct{ yaml, key string }{
		{"watchers:\n  maxActivePerOwner: 100\n", "watchers.maxActivePerOwner"},
		{"watchers:\n  networkIntervalFloorSec: 1\n", "watchers.networkIntervalFloorSec"},
	} {
		got := layers{project: c.yaml}.load(t)
		if got.err == nil || !strings.Contains(got.err.Error(), c.key+": cannot be set in a project file") {
			t.Errorf("project %q: error = %v, want it refused as user-only", c.yaml, got.err)
		}
	}
	got := layers{project: "watchers:\n  maxFires: 3\n"}.load(t)
	if got.err != nil || got.settings.Watchers().MaxFires != 3 {
		t.Errorf("project watchers.maxFires: %v, want it applied", got.err)
	}
}

// HANGDOG_WATCH_CURSOR is a command watcher's own variable: the group is
// watchers, so it must not be refused as an unknown setting, while a
// misspelt HANGDOG_WATCHERS_* is.
func TestWatchersEnvPrefix(t *testing.T) {
	if err := refuseUnknownEnv([]string{"HANGDOG_WATCH_CURSOR={}"}); err != nil {
		t.Errorf("HANGDOG_WATCH_CURSOR refused: %v", err)
	}
	err := refuseUnknownEnv([]string{"HANGDOG_WATCHERS_MAXFIRE=3"})
	if err == nil || !strings.Contains(err.Error(), "did you mean HANGDOG_WATCHERS_MAXFIRES (watchers.maxFires)?") {
		t.Errorf("HANGDOG_WATCHERS_MAXFIRE: %v, want refused with the key suggested", err)
	}
}

func TestServeAddress(t *testing.T) {
	if got := (layers{}).load(t).settings.ServeAddress(); got != DefaultServeAddress {
		t.Errorf("default serve.address = %q, want %q", got, DefaultServeAddress)
	}
	got := layers{flags: map[string]string{"serve.address": "[::1]:0"}}.load(t)
	if got.err != nil || got.settings.ServeAddress() != "[::1]:0" {
		t.Errorf("serve.address from a flag: %v %q", got.err, got.settings.ServeAddress())
	}
	for _, ok := range []string{"127.0.0.1:17465", "0.0.0.0:80", "localhost:9000", "hooks.example.com:443", "[::]:0"} {
		if _, err := Validate("serve.address", ok); err != nil {
			t.Errorf("Validate(serve.address, %q): %v", ok, err)
		}
	}
	for _, bad := range []string{"17465", "127.0.0.1", "127.0.0.1:70000", ":17465", "::1:80", "http://127.0.0.1:80", "bad host:80"} {
		_, err := Validate("serve.address", bad)
		if err == nil || !strings.Contains(err.Error(), "serve.address") || !strings.Contains(err.Error(), "HOST:PORT") {
			t.Errorf("Validate(serve.address, %q) = %v, want it refused naming the key and the form", bad, err)
		}
	}
	// A cloned repository must not open the receiver to the network.
	if got := (layers{project: "serve:\n  address: 0.0.0.0:17465\n"}).load(t); got.err == nil || !strings.Contains(got.err.Error(), "serve.address: cannot be set in a project file") {
		t.Errorf("serve.address in a project file: %v", got.err)
	}
}

// DefaultWatchers is what Load gives with no file, variable or flag: the
// table's defaults, read from the one table.
func TestDefaultWatchersAreTheTablesDefaults(t *testing.T) {
	st, err := Load(Options{Dir: t.TempDir(), UserFile: filepath.Join(t.TempDir(), "none.yaml"), Env: func(string) (string, bool) { return "", false }})
	if err != nil {
		t.Fatal(err)
	}
	if got := DefaultWatchers(); got != st.Watchers() {
		t.Fatalf("DefaultWatchers() = %+v, Load without settings = %+v", got, st.Watchers())
	}
}
