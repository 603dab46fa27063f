package settings

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func noEnv(string) (string, bool) { return "", false }

// With KeepGoing, each bad entry is one warning naming the file and key, and
// every good entry of the same file still applies.
func TestKeepGoingLeavesOutOnlyTheBadEntries(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "user.yaml")
	os.WriteFile(user, []byte("watchdog:\n  confidence: 7\n  nosuch: 1\n  action: kill\n  intervalMin: [1]\n"), 0o600)
	proj := filepath.Join(dir, ProjectFileName)
	os.WriteFile(proj, []byte("watchdog:\n  decisionModel:\n    url: http://x\n  agreeChecks: 3\n"), 0o600)

	s, err := Load(Options{Dir: dir, UserFile: user, Env: noEnv, KeepGoing: true})
	if err != nil {
		t.Fatalf("KeepGoing returned an error: %v", err)
	}
	if got := s.Watchdog().Action; got != "kill" {
		t.Errorf("action = %q, want the user file's kill", got)
	}
	if got := s.Watchdog().AgreeChecks; got != 3 {
		t.Errorf("agreeChecks = %d, want the project file's 3", got)
	}
	var msgs []string
	for _, w := range s.Warnings() {
		var e *Error
		if !errors.As(w, &e) {
			t.Errorf("warning %v is not a *settings.Error", w)
		}
		msgs = append(msgs, w.Error())
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{user + ": watchdog.confidence: 7", "nosuch", "watchdog.intervalMin", proj + ": watchdog.decisionModel.url"} {
		if !strings.Contains(all, want) {
			t.Errorf("warnings lack %q:\n%s", want, all)
		}
	}
	if len(msgs) != 4 {
		t.Errorf("%d warnings, want 4:\n%s", len(msgs), all)
	}

	// Without it, the first bad entry is an error, as before.
	if _, err := Load(Options{Dir: dir, UserFile: user, Env: noEnv}); err == nil {
		t.Fatal("strict Load accepted a bad file")
	}
}

// FuzzLoadConfigFile feeds arbitrary bytes as the user config file: Load
// never panics; strict, it accepts the file or refuses it with a
// *settings.Error; with KeepGoing it never fails, and what it leaves out is
// a warning.
func FuzzLoadConfigFile(f *testing.F) {
	for _, seed := range []string{
		"", "watchdog:\n  confidence: 0.7\n", "{bad", "watchdog: {{{", "- a\n- b\n", "watchdog: 1\n",
		"watchdog:\n  confidence: [1, 2]\n", "watchdog:\n  Confidence: 1\n  confidence: 1\n",
		"a: &x {b: *x}\n", "watchdog:\n  decisionModel:\n    url: http://x\n", "tasks:\n  keepDays: -1\n",
		"watchdog:\n  intervalMin: 1e309\n", "\x00\xff", strings.Repeat("[", 10000),
		"watchdog:\n  action: " + strings.Repeat("k", 1<<16) + "\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		user := filepath.Join(dir, "config.yaml")
		if err := os.WriteFile(user, data, 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Load(Options{Dir: dir, UserFile: user, Env: noEnv})
		var e *Error
		if err != nil && !errors.As(err, &e) {
			t.Fatalf("strict Load refused with %T %v, not a *settings.Error", err, err)
		}
		s, err := Load(Options{Dir: dir, UserFile: user, Env: noEnv, KeepGoing: true})
		if err != nil {
			t.Fatalf("KeepGoing Load failed: %v", err)
		}
		_ = s.Entries()
	})
}
