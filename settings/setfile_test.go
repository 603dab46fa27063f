package settings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func loadFile(t *testing.T, userFile string) *Settings {
	t.Helper()
	s, err := Load(Options{Dir: t.TempDir(), UserFile: userFile, Env: mapEnv(nil)})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSetInFileKeepsCommentsOrderAndUnknownKeys(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	writeFile(t, path, `# hangdog settings for this laptop
watchdog:
  # checks every half minute
  intervalMin: 0.5 # fast
  Confidence: 0.6
  decisionModel:
    source: custom # use the backend below
    url: "https://old.example/v1"
future: {keep: me}
`)
	for _, kv := range [][2]string{
		{"confidence", "0.75"},
		{"decisionModel.url", "https://new.example/v1"},
		{"agreeChecks", "4"},
		{"watchdog.decisionModel.model", "true"},
	} {
		if err := SetInFile(path, kv[0], kv[1]); err != nil {
			t.Fatalf("SetInFile(%s, %s): %v", kv[0], kv[1], err)
		}
	}
	want := `# hangdog settings for this laptop
watchdog:
  # checks every half minute
  intervalMin: 0.5 # fast
  Confidence: 0.75
  decisionModel:
    source: custom # use the backend below
    url: "https://new.example/v1"
    model: "true"
  agreeChecks: 4
future: {keep: me}
`
	if got := readFile(t, path); got != want {
		t.Errorf("file after SetInFile:\n%s\nwant:\n%s", got, want)
	}
}

func TestSetInFileValuesReadBackThroughLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	for _, k := range Keys() {
		if err := SetInFile(path, k.Key, alternatives[k.Key]); err != nil {
			t.Fatalf("SetInFile(%s): %v", k.Key, err)
		}
	}
	// Strings that YAML would otherwise read as other types stay strings.
	if err := SetInFile(path, "decisionModel.model", "0.5"); err != nil {
		t.Fatal(err)
	}
	s := loadFile(t, path)
	for _, k := range Keys() {
		text := alternatives[k.Key]
		if k.Key == "watchdog.decisionModel.model" {
			text = "0.5"
		}
		want, _ := Validate(k.Key, text)
		if e := mustGet(t, s, k.Key); e.Value != want || e.Source != SourceUser {
			t.Errorf("%s = %#v from %s, want %#v from the user file", k.Key, e.Value, e.Source, want)
		}
	}
	if err := SetInFile(path, "decisionModel.url", ""); err != nil {
		t.Fatal(err)
	}
	if e := mustGet(t, loadFile(t, path), "decisionModel.url"); e.Value != "" || e.Source != SourceUser {
		t.Errorf("url after setting it empty = %+v", e)
	}
}

func TestSetInFileCreatesAPrivateFileAndDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "xdg", "hangdog")
	path := filepath.Join(dir, "config.yaml")
	if err := SetInFile(path, "action", "warn"); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, path); got != "watchdog:\n  action: warn\n" {
		t.Errorf("new file:\n%s", got)
	}
	for p, want := range map[string]os.FileMode{dir: 0o700, path: 0o600} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s mode %v, want %v", p, fi.Mode().Perm(), want)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only config.yaml (no temporary files left)", len(entries))
	}
}

func TestSetInFileTightensAnOpenFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	writeFile(t, path, "watchdog: {}\n")
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := SetInFile(path, "debug", "yes"); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode after set: %v, %v", fi.Mode().Perm(), err)
	}
}

func TestSetInFileFillsAnEmptyOrCommentOnlyFile(t *testing.T) {
	for _, content := range []string{"", "# nothing yet\n", "# nothing\n\n# yet", "# a\n---\n", "watchdog:\n", "watchdog:\n  decisionModel: # later\n"} {
		path := filepath.Join(t.TempDir(), "config.yaml")
		writeFile(t, path, content)
		if err := SetInFile(path, "decisionModel.backend", "openai"); err != nil {
			t.Errorf("%q: %v", content, err)
			continue
		}
		if e := mustGet(t, loadFile(t, path), "decisionModel.backend"); e.Value != "openai" {
			t.Errorf("%q: backend = %v after set; file:\n%s", content, e.Value, readFile(t, path))
		}
		if strings.HasPrefix(content, "#") && !strings.Contains(readFile(t, path), strings.Split(content, "\n")[0]) {
			t.Errorf("%q: comment lost:\n%s", content, readFile(t, path))
		}
	}
}

func TestSetInFileRefusesAndLeavesTheFileUntouched(t *testing.T) {
	const original = "watchdog:\n  confidence: 0.6 # mine\n"
	cases := []struct {
		name, file, content, key, value, want string
	}{
		{"out of range", "config.yaml", original, "confidence", "1.7",
			"{path}: watchdog.confidence: 1.7 is out of range; allowed: a number from 0 to 1"},
		{"unknown choice", "config.yaml", original, "action", "explode",
			"{path}: watchdog.action: explode is not one of the choices; allowed: one of background, kill, warn"},
		{"unknown key", "config.yaml", original, "confidance", "0.7",
			"{path}: confidance: unknown key; did you mean watchdog.confidence? (hangdog config list shows every key)"},
		{"not YAML", "config.yaml", "watchdog: [\n", "confidence", "0.7",
			"{path}: is not valid YAML (line 1: did not find expected node content); fix the syntax first; the file was left as it is"},
		{"not a mapping", "config.yaml", "- a\n", "confidence", "0.7",
			"{path}: does not hold a mapping of settings; fix it by hand first; the file was left as it is"},
		{"group holds a value", "config.yaml", "watchdog: 3\n", "confidence", "0.7",
			"{path}: watchdog: is a single value where a group of settings belongs; fix it by hand first; the file was left as it is"},
		{"key twice", "config.yaml", "watchdog:\n  debug: true\n  DEBUG: true\n", "debug", "false",
			"{path}: watchdog.debug: is in the file twice; remove one of them, then try again; the file was left as it is"},
		{"user-only key in project file", ProjectFileName, original, "decisionModel.apiKeyEnv", "EVIL_KEY",
			"{path}: watchdog.decisionModel.apiKeyEnv: cannot be set in a project file; allowed: the user file, an environment variable or a flag; a project file comes with the repository, and must not choose where your API key and command output are sent"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), c.file)
			writeFile(t, path, c.content)
			before, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			err = SetInFile(path, c.key, c.value)
			want := strings.ReplaceAll(c.want, "{path}", path)
			if err == nil || err.Error() != want {
				t.Errorf("error:\n got  %v\n want %s", err, want)
			}
			after, statErr := os.Stat(path)
			if statErr != nil || readFile(t, path) != c.content || !after.ModTime().Equal(before.ModTime()) {
				t.Errorf("file changed:\n%s", readFile(t, path))
			}
			if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
				t.Errorf("directory holds %d entries, want 1", len(entries))
			}
		})
	}
}

func TestSetInFileWritesThroughASymlink(t *testing.T) {
	root := t.TempDir()
	target := filepath.Join(root, "dotfiles", "hangdog.yaml")
	writeFile(t, target, "# tracked in git\nwatchdog: {}\n")
	link := filepath.Join(root, "config", "hangdog", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(link), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := SetInFile(link, "intervalMin", "5"); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the symlink was replaced: %v, %v", fi.Mode(), err)
	}
	if got := readFile(t, target); got != "# tracked in git\nwatchdog: {intervalMin: 5}\n" {
		t.Errorf("target after set:\n%s", got)
	}
	if e := mustGet(t, loadFile(t, link), "intervalMin"); e.Value != 5.0 {
		t.Errorf("intervalMin read through the link = %v", e.Value)
	}
}
