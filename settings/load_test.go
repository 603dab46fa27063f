package settings

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// layers is one test's set of configuration layers, written to real files.
type layers struct {
	user, project string // file contents; "" = no file
	env           map[string]string
	flags         map[string]string
}

type loaded struct {
	settings              *Settings
	userFile, projectFile string
	err                   error
}

// load writes the layers into a fresh tree — user file in its own config dir,
// project file at the tree's root — and loads from three directories below it.
func (l layers) load(t *testing.T) loaded {
	t.Helper()
	root := t.TempDir()
	userFile := filepath.Join(root, "xdg", "hangdog", "config.yaml")
	projectFile := filepath.Join(root, "repo", ProjectFileName)
	workDir := filepath.Join(root, "repo", "a", "b", "c")
	if err := os.MkdirAll(workDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if l.user != "" {
		writeFile(t, userFile, l.user)
	}
	if l.project != "" {
		writeFile(t, projectFile, l.project)
	}
	s, err := Load(Options{Dir: workDir, UserFile: userFile, Env: mapEnv(l.env), Flags: l.flags})
	return loaded{settings: s, userFile: userFile, projectFile: projectFile, err: err}
}

func mapEnv(env map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v, ok := env[name]
		return v, ok
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func mustGet(t *testing.T, s *Settings, key string) Entry {
	t.Helper()
	e, err := s.Get(key)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestLoadWithNothingSetGivesDefaults(t *testing.T) {
	got := layers{}.load(t)
	if got.err != nil {
		t.Fatal(got.err)
	}
	if w := got.settings.Watchdog(); !reflect.DeepEqual(w, Default()) {
		t.Errorf("Watchdog() = %+v\nwant Default() = %+v", w, Default())
	}
	entries := got.settings.Entries()
	for i, k := range Keys() {
		e := entries[i]
		if e.Key != k.Key || e.Source != SourceDefault || e.SourceDetail != "" || e.Value != k.Default {
			t.Errorf("entry %d = %+v, want %s = %#v from default", i, e, k.Key, k.Default)
		}
		if e.Allowed != k.Allowed || e.Help != k.Help || e.Kind != k.Kind || !reflect.DeepEqual(e.Choices, k.Choices) {
			t.Errorf("entry %s does not carry its key's description", e.Key)
		}
	}
}

// Each layer sets the keys of the layer below plus nothing new, so every key
// ends up owned by a different layer and each override is visible.
func TestLoadEachLayerOverridesTheOneBelow(t *testing.T) {
	got := layers{
		user: `watchdog:
  intervalMin: 1
  firstCheckMin: 1
  confidence: 0.6
  agreeChecks: 3
`,
		project: `watchdog:
  firstCheckMin: 0.5
  confidence: 0.7
  agreeChecks: 4
`,
		env: map[string]string{
			"HANGDOG_WATCHDOG_CONFIDENCE":  "0.8",
			"HANGDOG_WATCHDOG_AGREECHECKS": "5",
		},
		flags: map[string]string{"agreeChecks": "6"},
	}.load(t)
	if got.err != nil {
		t.Fatal(got.err)
	}
	want := []struct {
		key, source, detail string
		value               any
	}{
		{"watchdog.enabled", SourceDefault, "", true},
		{"watchdog.intervalMin", SourceUser, got.userFile, 1.0},
		{"watchdog.firstCheckMin", SourceProject, got.projectFile, 0.5},
		{"watchdog.confidence", SourceEnv, "HANGDOG_WATCHDOG_CONFIDENCE", 0.8},
		{"watchdog.agreeChecks", SourceFlag, "", 6},
	}
	for _, w := range want {
		e := mustGet(t, got.settings, w.key)
		if e.Value != w.value || e.Source != w.source || e.SourceDetail != w.detail {
			t.Errorf("%s = %#v from %s %s, want %#v from %s %s", w.key, e.Value, e.Source, e.SourceDetail, w.value, w.source, w.detail)
		}
	}
	wd := got.settings.Watchdog()
	if wd.IntervalMin != 1 || wd.FirstCheckMin != 0.5 || wd.Confidence != 0.8 || wd.AgreeChecks != 6 || !wd.Enabled {
		t.Errorf("Watchdog() = %+v does not match the entries", wd)
	}
}

func TestLoadMergesNestedGroupsAcrossLayers(t *testing.T) {
	got := layers{
		user:    "watchdog:\n  decisionModel:\n    backend: openai\n    url: https://llm.example/v1\n",
		project: "watchdog:\n  decisionModel:\n    model: small\n",
		env:     map[string]string{"HANGDOG_WATCHDOG_DECISIONMODEL_SOURCE": "custom"},
		flags:   map[string]string{"decisionModel.timeoutSec": "7"},
	}.load(t)
	if got.err != nil {
		t.Fatal(got.err)
	}
	want := DecisionModel{Source: "custom", Backend: "openai", URL: "https://llm.example/v1", Model: "small", TimeoutSec: 7}
	if dm := got.settings.Watchdog().DecisionModel; dm != want {
		t.Errorf("DecisionModel = %+v, want %+v", dm, want)
	}
}

func TestLoadMatchesKeysCaseInsensitivelyAndReportsCanonicalCase(t *testing.T) {
	got := layers{
		user:  "WatchDog:\n  INTERVALMIN: 0.25\n  decisionmodel:\n    APIKEYENV: MY_KEY\n",
		flags: map[string]string{"WATCHDOG.ACTION": "warn"},
	}.load(t)
	if got.err != nil {
		t.Fatal(got.err)
	}
	for key, want := range map[string]any{
		"watchdog.intervalMin":             0.25,
		"watchdog.decisionModel.apiKeyEnv": "MY_KEY",
		"watchdog.action":                  "warn",
	} {
		var e Entry
		for _, x := range got.settings.Entries() {
			if strings.EqualFold(x.Key, key) {
				e = x
			}
		}
		if e.Key != key || e.Value != want {
			t.Errorf("entry %q = %+v, want key %s = %#v", key, e, key, want)
		}
	}
}

func TestLoadRefusesABadLayerWithOneErrorNamingIt(t *testing.T) {
	const (
		user    = "{user}"
		project = "{project}"
	)
	cases := []struct {
		name string
		l    layers
		want string // exact message, with {user} and {project} standing for the paths
	}{
		{"out of range in user file",
			layers{user: "watchdog:\n  confidence: 1.7\n"},
			user + ": watchdog.confidence: 1.7 is out of range; allowed: a number from 0 to 1"},
		{"unknown choice in project file",
			layers{project: "watchdog:\n  action: explode\n"},
			project + ": watchdog.action: explode is not one of the choices; allowed: one of background, kill, warn"},
		{"negative minutes",
			layers{user: "watchdog:\n  intervalMin: -2\n"},
			user + ": watchdog.intervalMin: -2 is out of range; allowed: a number of minutes greater than 0 and at most 10080 (fractions allowed, e.g. 0.05)"},
		{"not a number",
			layers{project: "watchdog:\n  firstCheckMin: soon\n"},
			project + ": watchdog.firstCheckMin: soon is not a number; allowed: a number of minutes from 0 to 10080 (fractions allowed, e.g. 0.5)"},
		{"empty value for a number",
			layers{user: "watchdog:\n  confidence:\n"},
			user + `: watchdog.confidence: "" is not a number; allowed: a number from 0 to 1`},
		{"unknown key with suggestion",
			layers{user: "watchdog:\n  confidance: 0.9\n"},
			user + ": watchdog.confidance: unknown key; did you mean watchdog.confidence? (hangdog config list shows every key)"},
		{"unknown nested key keeps the file's spelling",
			layers{project: "Watchdog:\n  decisionModel:\n    modle: x\n"},
			project + ": Watchdog.decisionModel.modle: unknown key; did you mean watchdog.decisionModel.model? (hangdog config list shows every key)"},
		{"key outside its group",
			layers{user: "confidence: 0.9\n"},
			user + ": confidence: unknown key; it belongs under its group, e.g. watchdog: {confidence: ...}"},
		{"dotted key",
			layers{user: "watchdog.decisionModel.url: https://x.example\n"},
			user + ": watchdog.decisionModel.url: unknown key; it belongs under its group, e.g. watchdog: {decisionModel: {url: ...}}"},
		{"unknown top-level key",
			layers{user: "watchdog:\n  debug: true\nwatchdgo: {}\n"},
			user + ": watchdgo: unknown key; did you mean watchdog? (hangdog config list shows every key)"},
		{"misspelt group",
			layers{user: "watchdog:\n  decisionModle:\n    url: https://x.example\n"},
			user + ": watchdog.decisionModle: unknown key; did you mean watchdog.decisionModel? (hangdog config list shows every key)"},
		{"value where a group belongs",
			layers{user: "watchdog: 3\n"},
			user + ": watchdog: is a group of settings, not a single value; put its keys on the lines below it, indented"},
		{"group where a value belongs",
			layers{user: "watchdog:\n  confidence:\n    value: 1\n"},
			user + ": watchdog.confidence: is a group or a list, not a single value; allowed: a number from 0 to 1"},
		{"same key twice in different case",
			layers{user: "watchdog:\n  debug: true\n  Debug: false\n"},
			user + ": watchdog.Debug: is set twice (also as watchdog.debug); keep one of them"},
		{"YAML but not a mapping",
			layers{project: "- watchdog\n- confidence\n"},
			project + ": does not hold a mapping of settings; the file should start with a line `watchdog:` followed by indented keys such as `  confidence: 0.7`"},
		{"project file may not choose where the key goes",
			layers{project: "watchdog:\n  decisionModel:\n    url: https://evil.example/v1\n"},
			project + ": watchdog.decisionModel.url: cannot be set in a project file; allowed: the user file, an environment variable or a flag; a project file comes with the repository, and must not choose where your API key and command output are sent"},
		{"bad environment value",
			layers{env: map[string]string{"HANGDOG_WATCHDOG_INTERVALMIN": "abc"}},
			"environment variable HANGDOG_WATCHDOG_INTERVALMIN: watchdog.intervalMin: abc is not a number; allowed: a number of minutes greater than 0 and at most 10080 (fractions allowed, e.g. 0.05)"},
		{"bad environment bool",
			layers{env: map[string]string{"HANGDOG_WATCHDOG_DEBUG": "verbose"}},
			"environment variable HANGDOG_WATCHDOG_DEBUG: watchdog.debug: verbose is not true or false; allowed: true or false (also yes/no, on/off, 1/0)"},
		{"bad flag value",
			layers{flags: map[string]string{"agreeChecks": "21"}},
			"command-line flag: watchdog.agreeChecks: 21 is out of range; allowed: a whole number from 1 to 20"},
		{"unknown flag key",
			layers{flags: map[string]string{"actoin": "kill"}},
			"command-line flag: actoin: unknown key; did you mean watchdog.action? (hangdog config list shows every key)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := c.l.load(t)
			if got.err == nil {
				t.Fatal("Load accepted the bad layer")
			}
			want := strings.NewReplacer(user, got.userFile, project, got.projectFile).Replace(c.want)
			if got.err.Error() != want {
				t.Errorf("error:\n got  %s\n want %s", got.err, want)
			}
			var se *Error
			if !errors.As(got.err, &se) {
				t.Errorf("error %T is not a *settings.Error", got.err)
			}
			if got.settings != nil {
				t.Error("Load returned settings along with the error")
			}
		})
	}
}

func TestLoadRefusesAFileThatIsNotYAML(t *testing.T) {
	for _, content := range []string{
		"watchdog:\n  confidence: 0.5\n bad: indent\n",
		"watchdog: [0.5\n",
		"\tconfidence=0.5\n",
	} {
		got := layers{project: content}.load(t)
		if got.err == nil {
			t.Errorf("accepted %q", content)
			continue
		}
		msg := got.err.Error()
		if !strings.HasPrefix(msg, got.projectFile+": is not valid YAML (") ||
			!strings.HasSuffix(msg, "; fix the syntax, or move the file away to start again") {
			t.Errorf("%q: error = %s", content, msg)
		}
	}
}

func TestLoadReportsTheLowestBadLayerFirst(t *testing.T) {
	got := layers{
		user:  "watchdog:\n  confidence: 2\n",
		env:   map[string]string{"HANGDOG_WATCHDOG_CONFIDENCE": "3"},
		flags: map[string]string{"confidence": "4"},
	}.load(t)
	if got.err == nil || !strings.HasPrefix(got.err.Error(), got.userFile+": ") {
		t.Errorf("error = %v, want the user file's problem", got.err)
	}
}

func TestLoadFindsTheNearestProjectFile(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, ProjectFileName), "watchdog:\n  action: kill\n  debug: true\n")
	inner := filepath.Join(root, "svc", ProjectFileName)
	writeFile(t, inner, "watchdog:\n  action: warn\n")
	deep := filepath.Join(root, "svc", "cmd", "tool")
	if err := os.MkdirAll(deep, 0o700); err != nil {
		t.Fatal(err)
	}

	if p, ok := FindProjectFile(deep); !ok || p != inner {
		t.Errorf("FindProjectFile(%s) = %q, %v; want %s", deep, p, ok, inner)
	}
	s, err := Load(Options{Dir: deep, UserFile: filepath.Join(root, "none.yaml"), Env: mapEnv(nil)})
	if err != nil {
		t.Fatal(err)
	}
	e := mustGet(t, s, "action")
	if e.Value != "warn" || e.Source != SourceProject || e.SourceDetail != inner {
		t.Errorf("action = %+v, want warn from %s", e, inner)
	}
	// Only the nearest project file counts: the outer one's debug is not merged.
	if d := mustGet(t, s, "debug"); d.Value != false || d.Source != SourceDefault {
		t.Errorf("debug = %+v, want the default", d)
	}
}

func TestFindProjectFileIgnoresDirectoriesNamedLikeIt(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, ProjectFileName), "")
	sub := filepath.Join(root, "sub")
	if err := os.MkdirAll(filepath.Join(sub, ProjectFileName), 0o700); err != nil {
		t.Fatal(err)
	}
	if p, ok := FindProjectFile(sub); !ok || p != filepath.Join(root, ProjectFileName) {
		t.Errorf("FindProjectFile = %q, %v; want the parent's file", p, ok)
	}
}

// The real environment path (Env nil) reads os.LookupEnv and refuses a
// misspelt HANGDOG_WATCHDOG_ variable instead of ignoring it.
func TestLoadFromTheProcessEnvironment(t *testing.T) {
	dir := t.TempDir()
	opts := Options{Dir: dir, UserFile: filepath.Join(dir, "none.yaml")}

	t.Setenv("HANGDOG_WATCHDOG_DECISIONMODEL_SOURCE", "custom")
	t.Setenv("HANGDOG_WATCHDOG_INPUTWAITSEC", "") // empty counts as unset
	s, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	if e := mustGet(t, s, "decisionModel.source"); e.Value != "custom" || e.Source != SourceEnv || e.SourceDetail != "HANGDOG_WATCHDOG_DECISIONMODEL_SOURCE" {
		t.Errorf("decisionModel.source = %+v, want custom from the environment", e)
	}
	if e := mustGet(t, s, "inputWaitSec"); e.Source != SourceDefault {
		t.Errorf("an empty variable overrode inputWaitSec: %+v", e)
	}

	t.Setenv("HANGDOG_WATCHDOG_CONFIDANCE", "0.9")
	_, err = Load(opts)
	want := "environment variable HANGDOG_WATCHDOG_CONFIDANCE: names no setting; did you mean HANGDOG_WATCHDOG_CONFIDENCE (watchdog.confidence)?"
	if err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant %s", err, want)
	}
}

// alternatives holds a valid, non-default value for every key.
var alternatives = map[string]string{
	"watchdog.enabled":                  "no",
	"watchdog.intervalMin":              "0.05",
	"watchdog.firstCheckMin":            "0",
	"watchdog.confidence":               "0.9",
	"watchdog.agreeChecks":              "7",
	"watchdog.action":                   "kill",
	"watchdog.watchBash":                "off",
	"watchdog.watchBgTasks":             "yes",
	"watchdog.otherTools":               "abort-turn",
	"watchdog.inputWaitSec":             "0.5",
	"watchdog.debug":                    "on",
	"watchdog.decisionModel.source":     "custom",
	"watchdog.decisionModel.backend":    "typesafe",
	"watchdog.decisionModel.url":        "http://127.0.0.1:8080/judge",
	"watchdog.decisionModel.model":      "judge-small",
	"watchdog.decisionModel.apiKeyEnv":  "JUDGE_API_KEY",
	"watchdog.decisionModel.timeoutSec": "45",
	"tasks.keepDays":                    "30",
	"tasks.agentProfile":                "false",
	"tasks.onSessionEnd":                "keep",
	"watchers.maxActivePerOwner":        "2",
	"watchers.maxFires":                 "5",
	"watchers.maxWakesPerHour":          "30",
	"watchers.graceChecks":              "2",
	"watchers.maxErrors":                "9",
	"watchers.judgeFailures":            "4",
	"watchers.networkIntervalFloorSec":  "5",
	"serve.address":                     "127.0.0.1:0",
	"events.sink":                       "nats://n1:4222,tls://n2:4222",
	"events.credentials":                "/etc/hangdog/nats.creds",
	"events.stream":                     "FLEET_1",
	"events.replicas":                   "3",
	"events.host":                       "ci-runner-7",
}

// The events.* settings reach Events, where the fleet reads them.
func TestEventsReachEvents(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	for _, k := range []string{"events.sink", "events.credentials", "events.stream", "events.replicas", "events.host"} {
		if err := SetInFile(path, k, alternatives[k]); err != nil {
			t.Fatal(err)
		}
	}
	got := loadFile(t, path).Events()
	want := Events{Sink: "nats://n1:4222,tls://n2:4222", Credentials: "/etc/hangdog/nats.creds", Stream: "FLEET_1", Replicas: 3, Host: "ci-runner-7"}
	if got != want {
		t.Errorf("Events() = %+v, want %+v", got, want)
	}
	if d := loadFile(t, filepath.Join(t.TempDir(), "none.yaml")).Events(); d.Sink != "" || d.Stream != "HANGDOG_EVENTS" || d.Replicas != 0 {
		t.Errorf("default Events() = %+v", d)
	}
}

// Every key must reach the Watchdog struct, under the JSON name that matches
// the key, so the supervisor sees exactly what was configured.
func TestEveryKeyReachesWatchdogUnderItsOwnName(t *testing.T) {
	for _, k := range Keys() {
		if !strings.HasPrefix(k.Key, "watchdog.") {
			continue // TestKeepDaysReachesKeepEnded
		}
		text, ok := alternatives[k.Key]
		if !ok {
			t.Fatalf("no alternative value for %s", k.Key)
		}
		want, err := Validate(k.Key, text)
		if err != nil || want == k.Default {
			t.Fatalf("alternative %q for %s: %v (or equals the default)", text, k.Key, err)
		}
		got := layers{flags: map[string]string{k.Key: text}}.load(t)
		if got.err != nil {
			t.Fatal(got.err)
		}
		raw, err := json.Marshal(got.settings.Watchdog())
		if err != nil {
			t.Fatal(err)
		}
		var tree map[string]any
		if err := json.Unmarshal(raw, &tree); err != nil {
			t.Fatal(err)
		}
		var at any = tree
		for _, part := range strings.Split(strings.TrimPrefix(k.Key, "watchdog."), ".") {
			at = at.(map[string]any)[part]
		}
		if wantJSON, _ := json.Marshal(want); string(mustJSON(t, at)) != string(wantJSON) {
			t.Errorf("%s = %s in Watchdog JSON, want %s", k.Key, mustJSON(t, at), wantJSON)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestWatchdogDurations(t *testing.T) {
	w := Watchdog{IntervalMin: 0.05, FirstCheckMin: 1.5, InputWaitSec: 0.25, DecisionModel: DecisionModel{TimeoutSec: 20}}
	if got := w.Interval(); got != 3*time.Second {
		t.Errorf("Interval() = %v, want 3s", got)
	}
	if got := w.FirstCheck(); got != 90*time.Second {
		t.Errorf("FirstCheck() = %v, want 1m30s", got)
	}
	if got := w.InputWait(); got != 250*time.Millisecond {
		t.Errorf("InputWait() = %v, want 250ms", got)
	}
	if got := w.DecisionModel.Timeout(); got != 20*time.Second {
		t.Errorf("Timeout() = %v, want 20s", got)
	}
}

func TestGetUnknownKey(t *testing.T) {
	got := layers{}.load(t)
	if got.err != nil {
		t.Fatal(got.err)
	}
	_, err := got.settings.Get("watchdog.firstCheck")
	if err == nil || !strings.Contains(err.Error(), "watchdog.firstCheck: unknown key; did you mean watchdog.firstCheckMin?") {
		t.Errorf("Get(watchdog.firstCheck) error = %v", err)
	}
}

func TestUserFileFollowsXDG(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "/srv/cfg")
	if got := UserFile(); got != "/srv/cfg/hangdog/config.yaml" {
		t.Errorf("with XDG_CONFIG_HOME: %s", got)
	}
	t.Setenv("XDG_CONFIG_HOME", "relative/dir") // invalid per the XDG spec
	if got := UserFile(); got != filepath.Join(home, ".config", "hangdog", "config.yaml") {
		t.Errorf("with a relative XDG_CONFIG_HOME: %s", got)
	}
	t.Setenv("XDG_CONFIG_HOME", "")
	if got := UserFile(); got != filepath.Join(home, ".config", "hangdog", "config.yaml") {
		t.Errorf("without XDG_CONFIG_HOME: %s", got)
	}
}

func TestLoadReadsTheDefaultUserFile(t *testing.T) {
	xdg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", xdg)
	writeFile(t, filepath.Join(xdg, "hangdog", "config.yaml"), "watchdog:\n  watchBgTasks: true\n")
	s, err := Load(Options{Dir: t.TempDir(), Env: mapEnv(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if e := mustGet(t, s, "watchBgTasks"); e.Value != true || e.SourceDetail != filepath.Join(xdg, "hangdog", "config.yaml") {
		t.Errorf("watchBgTasks = %+v, want true from the XDG user file", e)
	}
}

func TestLoadRefusesAnUnreadableFile(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads any file")
	}
	got := layers{user: "watchdog: {}\n"}.load(t)
	if got.err != nil {
		t.Fatal(got.err)
	}
	if err := os.Chmod(got.userFile, 0); err != nil {
		t.Fatal(err)
	}
	_, err := Load(Options{Dir: t.TempDir(), UserFile: got.userFile, Env: mapEnv(nil)})
	if err == nil || !strings.Contains(err.Error(), "read "+got.userFile) {
		t.Errorf("error = %v, want it to name the file", err)
	}
}

// A front end's defaults (the Claude Code hook's cadence) replace the
// built-in ones only: a key the user set anywhere keeps the user's value.
func TestLoadDefaultsSitBelowEveryLayer(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "config.yaml")
	writeFile(t, user, "watchdog:\n  intervalMin: 3\n")
	s, err := Load(Options{Dir: dir, UserFile: user, Env: mapEnv(map[string]string{}),
		Defaults: map[string]string{"watchdog.firstCheckMin": "0.1", "watchdog.intervalMin": "0.05"}})
	if err != nil {
		t.Fatal(err)
	}
	if w := s.Watchdog(); w.FirstCheckMin != 0.1 || w.IntervalMin != 3 {
		t.Errorf("firstCheckMin %v (want the caller's 0.1), intervalMin %v (want the user's 3)", w.FirstCheckMin, w.IntervalMin)
	}
	if e := mustGet(t, s, "watchdog.firstCheckMin"); e.Source != SourceDefault {
		t.Errorf("a caller's default reads as source %q", e.Source)
	}
	if _, err := Load(Options{Dir: dir, UserFile: user, Env: mapEnv(map[string]string{}), Defaults: map[string]string{"watchdog.firstCheckMin": "soon"}}); err == nil {
		t.Error("a bad default was taken")
	}
}
