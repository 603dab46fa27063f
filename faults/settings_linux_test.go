//go:build linux

package faults

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A bad key in a project file, one given where only the user file may set
// it, a value out of range, and a user config that is not YAML at all: the
// command still runs, with one warning per entry that names the file, the
// key and the value.
func TestBadSettingsWarnButTheCommandRuns(t *testing.T) {
	w := newWorld(t)
	project := filepath.Join(w.root, "repo")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	projectFile := filepath.Join(project, ".hangdog.yaml")
	os.WriteFile(projectFile, []byte("watchdog:\n  decisionModel:\n    url: http://elsewhere.example\n  bogusKey: 1\n  confidence: 7\n  action: kill\n"), 0o644)
	userFile := filepath.Join(w.cfg, "hangdog", "config.yaml")
	os.MkdirAll(filepath.Dir(userFile), 0o700)
	os.WriteFile(userFile, []byte("watchdog: {{{ broken\n"), 0o600)

	r := w.run("run", "--cwd", project, "--", "echo", "still runs")
	if r.code != 0 || !strings.Contains(r.stdout, "still runs") {
		t.Fatalf("exit %d, stdout %q; stderr: %s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		projectFile + ": watchdog.decisionModel.url",
		"bogusKey",
		"watchdog.confidence: 7",
		userFile + ": is not valid YAML",
		"left out",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}

	// bg run too, and a bad --set is still refused (this command's own input).
	if r := w.run("bg", "run", "--cwd", project, "--", "true"); r.code != 0 {
		t.Fatalf("bg run with a bad project file: exit %d: %s", r.code, r.stderr)
	}
	if r := w.run("run", "--set", "watchdog.confidence=7", "--", "true"); r.code == 0 {
		t.Fatalf("a bad --set was accepted: %s", r.stderr)
	}
}
