package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hangdog/hangdog/settings"
)

// configWorld is a private HOME, XDG_CONFIG_HOME and working directory for
// one test; the config commands run in-process against it.
type configWorld struct {
	t        *testing.T
	root     string
	userFile string
	workDir  string
}

func newConfigWorld(t *testing.T) *configWorld {
	t.Helper()
	root := t.TempDir()
	w := &configWorld{
		t: t, root: root,
		userFile: filepath.Join(root, "xdg", "hangdog", "config.yaml"),
		workDir:  filepath.Join(root, "repo"),
	}
	if err := os.MkdirAll(w.workDir, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", root)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(root, "xdg"))
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "HANGDOG_WATCHDOG_") {
			t.Setenv(name, "") // registers the restore
			os.Unsetenv(name)
		}
	}
	t.Chdir(w.workDir)
	return w
}

// hangdog runs the CLI in-process and returns stdout, stderr and the error
// main would print.
func (w *configWorld) hangdog(args ...string) (string, string, error) {
	w.t.Helper()
	root := newRootCmd()
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), errOut.String(), err
}

func (w *configWorld) mustHangdog(args ...string) (string, string) {
	w.t.Helper()
	out, errOut, err := w.hangdog(args...)
	if err != nil {
		w.t.Fatalf("hangdog %s: %v\nstderr: %s", strings.Join(args, " "), err, errOut)
	}
	return out, errOut
}

func TestConfigSetWritesTheUserFileAndGetReadsIt(t *testing.T) {
	w := newConfigWorld(t)
	out, _ := w.mustHangdog("config", "set", "confidence", "0.7")
	if want := "watchdog.confidence = 0.7 (in " + w.userFile + ")\n"; out != want {
		t.Errorf("set printed %q, want %q", out, want)
	}
	fi, err := os.Stat(w.userFile)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("user file: %v, %v", fi, err)
	}
	if got, _ := w.mustHangdog("config", "get", "watchdog.Confidence"); got != "0.7\n" {
		t.Errorf("get printed %q, want 0.7", got)
	}
	// A key left at its default reads back too, and an empty one as an empty line.
	if got, _ := w.mustHangdog("config", "get", "action"); got != "background\n" {
		t.Errorf("get action printed %q", got)
	}
	if got, _ := w.mustHangdog("config", "get", "decisionModel.url"); got != "\n" {
		t.Errorf("get url printed %q", got)
	}
}

func TestConfigSetRefusesABadValueAndLeavesTheFile(t *testing.T) {
	w := newConfigWorld(t)
	w.mustHangdog("config", "set", "action", "warn")
	before, err := os.ReadFile(w.userFile)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = w.hangdog("config", "set", "confidence", "1.7")
	want := w.userFile + ": watchdog.confidence: 1.7 is out of range; allowed: a number from 0 to 1"
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want %s", err, want)
	}
	if after, _ := os.ReadFile(w.userFile); !bytes.Equal(before, after) {
		t.Errorf("file changed:\n%s", after)
	}
	if code := run([]string{"config", "set", "action", "explode"}); code != exitHangdogError {
		t.Errorf("exit code %d, want %d", code, exitHangdogError)
	}
}

func TestConfigSetProjectFromANestedDirectory(t *testing.T) {
	w := newConfigWorld(t)
	// No project file yet: --project creates one in the working directory.
	w.mustHangdog("config", "set", "--project", "agreeChecks", "3")
	project := filepath.Join(w.workDir, settings.ProjectFileName)
	if got, _ := w.mustHangdog("config", "get", "agreeChecks"); got != "3\n" {
		t.Errorf("agreeChecks = %q after set --project", got)
	}

	nested := filepath.Join(w.workDir, "src", "pkg")
	if err := os.MkdirAll(nested, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Chdir(nested)
	w.mustHangdog("config", "set", "--project", "watchdog.action", "kill")
	if _, err := os.Stat(filepath.Join(nested, settings.ProjectFileName)); !os.IsNotExist(err) {
		t.Errorf("set --project made a new file in the subdirectory instead of using %s", project)
	}
	data, err := os.ReadFile(project)
	if err != nil || string(data) != "watchdog:\n  agreeChecks: 3\n  action: kill\n" {
		t.Errorf("project file: %q, %v", data, err)
	}
	out, _ := w.mustHangdog("config", "path", "--all")
	if want := "user     " + w.userFile + "\nproject  " + project + "\n"; out != want {
		t.Errorf("path printed:\n%s\nwant:\n%s", out, want)
	}

	_, _, err = w.hangdog("config", "set", "--project", "decisionModel.url", "https://evil.example")
	if err == nil || !strings.Contains(err.Error(), project+": watchdog.decisionModel.url: cannot be set in a project file") {
		t.Errorf("project url error = %v", err)
	}
}

func TestConfigPathWithoutAProjectFile(t *testing.T) {
	w := newConfigWorld(t)
	out, _ := w.mustHangdog("config", "path", "--all")
	if want := "user     " + w.userFile + "\nproject  none\n"; out != want {
		t.Errorf("path printed:\n%s\nwant:\n%s", out, want)
	}
	// Alone, the user file's path and nothing else, for $(hangdog config path).
	if out, _ := w.mustHangdog("config", "path"); out != w.userFile+"\n" {
		t.Errorf("config path printed %q, want %q", out, w.userFile+"\n")
	}
}

func TestConfigListShowsValuesAndSources(t *testing.T) {
	w := newConfigWorld(t)
	w.mustHangdog("config", "set", "intervalMin", "0.5")
	t.Setenv("HANGDOG_WATCHDOG_DEBUG", "yes")

	out, _ := w.mustHangdog("config", "list")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 1+len(settings.Keys()) {
		t.Fatalf("list printed %d lines, want a header and %d keys:\n%s", len(lines), len(settings.Keys()), out)
	}
	for _, want := range [][]string{
		{"KEY", "VALUE", "SOURCE"},
		{"watchdog.intervalMin", "0.5", "user", w.userFile},
		{"watchdog.debug", "true", "env", "HANGDOG_WATCHDOG_DEBUG"},
		{"watchdog.confidence", "0.5", "default"},
		{"watchdog.decisionModel.url", `""`, "default"},
	} {
		found := false
		for _, line := range lines {
			if strings.Join(strings.Fields(line), " ") == strings.Join(want, " ") {
				found = true
			}
		}
		if !found {
			t.Errorf("no line %q in:\n%s", strings.Join(want, " "), out)
		}
	}

	out, _ = w.mustHangdog("config", "list", "--json")
	var entries []settings.Entry
	if err := json.Unmarshal([]byte(out), &entries); err != nil {
		t.Fatalf("list --json: %v\n%s", err, out)
	}
	byKey := map[string]settings.Entry{}
	for _, e := range entries {
		byKey[e.Key] = e
	}
	if e := byKey["watchdog.debug"]; e.Value != true || e.Source != "env" || e.SourceDetail != "HANGDOG_WATCHDOG_DEBUG" || e.Kind != "bool" || e.Help == "" {
		t.Errorf("debug in JSON = %+v", e)
	}
	if e := byKey["watchdog.action"]; strings.Join(e.Choices, ",") != "background,kill,warn" || e.Allowed == "" {
		t.Errorf("action in JSON = %+v", e)
	}
}

func TestConfigSetNotesAnOverridingLayer(t *testing.T) {
	w := newConfigWorld(t)
	t.Setenv("HANGDOG_WATCHDOG_CONFIDENCE", "0.9")
	out, errOut := w.mustHangdog("config", "set", "confidence", "0.6")
	if want := "watchdog.confidence = 0.6 (in " + w.userFile + ")\n"; out != want {
		t.Errorf("stdout = %q, want %q", out, want)
	}
	if want := "note: env HANGDOG_WATCHDOG_CONFIDENCE overrides it with 0.9, so that value is the one in effect\n"; errOut != want {
		t.Errorf("stderr = %q, want %q", errOut, want)
	}
}

func TestConfigCommandsRefuseABrokenConfig(t *testing.T) {
	w := newConfigWorld(t)
	if err := os.MkdirAll(filepath.Dir(w.userFile), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(w.userFile, []byte("watchdog:\n  confidance: 0.9\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	want := w.userFile + ": watchdog.confidance: unknown key; did you mean watchdog.confidence?"
	for _, args := range [][]string{{"config", "list"}, {"config", "get", "confidence"}} {
		_, _, err := w.hangdog(args...)
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%v: error = %v, want it to start with %s", args, err, want)
		}
	}
	_, _, err := w.hangdog("config", "get", "confidance")
	if err == nil || !strings.Contains(err.Error(), "did you mean") {
		t.Errorf("get of an unknown key: %v", err)
	}
}

func TestConfigCommandsTeachInTheirHelp(t *testing.T) {
	cfg := newConfigCmd()
	for _, c := range append(cfg.Commands(), cfg) {
		if len(c.Long) < 100 || !strings.Contains(c.Example, "hangdog config") {
			t.Errorf("%q lacks a teaching Long text or examples", c.CommandPath())
		}
	}
}
