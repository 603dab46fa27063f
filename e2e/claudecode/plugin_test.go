//go:build linux

package claudecode

import (
	"crypto/sha256"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// files is every file under root with a hash of its contents.
func files(t *testing.T, root string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&fs.ModeSocket != 0 {
			return nil
		}
		b, _ := os.ReadFile(path)
		rel, _ := filepath.Rel(root, path)
		out[rel] = sha256.Sum256(b)
		return nil
	})
	return out
}

// changed lists the files of after that are new or different from before.
func changed(before, after map[string][32]byte) []string {
	var out []string
	for p, h := range after {
		if old, ok := before[p]; !ok || old != h {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// `claude plugin marketplace add <checkout>` and `claude plugin install`
// with the real CLI: what they write is Claude Code's own record of the
// plugin and nothing else (no settings file of hooks, no file in the
// project, nothing in hangdog's home); uninstalling and removing the
// marketplace leave no setting behind and the plugin listed nowhere.
func TestPluginInstallsAndUninstallsCleanly(t *testing.T) {
	needClaude(t)
	t.Parallel()
	runs <- struct{}{} // one of the claude sessions at once
	defer func() { <-runs }()
	w := newWorld(t)
	w.claude("--version") // Claude Code's own first-run files, not the plugin's
	before := files(t, w.root)
	w.install()
	// Claude Code's records: its config and backups, its settings (the
	// marketplace and the enabled plugin), its plugin records and cache.
	own := regexp.MustCompile(`^home/(\.claude\.json|\.claude/(settings\.json|backups/[^/]+|plugins/.+))$`)
	for _, p := range changed(before, files(t, w.root)) {
		if !own.MatchString(p) {
			t.Errorf("installing the plugin wrote %s", p)
		}
	}
	settings := func() map[string]any {
		var s map[string]any
		b, _ := os.ReadFile(filepath.Join(w.home, ".claude", "settings.json"))
		json.Unmarshal(b, &s)
		return s
	}
	for k := range settings() {
		if k != "enabledPlugins" && k != "extraKnownMarketplaces" {
			t.Errorf("installing the plugin set %q in ~/.claude/settings.json", k)
		}
	}
	if list := w.claude("plugin", "list"); !strings.Contains(list, "hangdog") {
		t.Errorf("claude plugin list does not list the plugin:\n%s", list)
	}

	w.claude("plugin", "uninstall", pluginName)
	w.claude("plugin", "marketplace", "remove", "hangdog")
	b, _ := os.ReadFile(filepath.Join(w.home, ".claude", "settings.json"))
	if strings.Contains(string(b), "hangdog") {
		t.Errorf("~/.claude/settings.json still names hangdog after uninstalling:\n%s", b)
	}
	if list := w.claude("plugin", "list"); strings.Contains(list, "hangdog") {
		t.Errorf("claude plugin list still lists the plugin:\n%s", list)
	}
	// What is left is Claude Code's own: its cache of the plugin, marked
	// orphaned (Claude Code deletes such copies itself).
	cache := regexp.MustCompile(`^home/\.claude/plugins/cache/hangdog/`)
	for _, p := range changed(before, files(t, w.root)) {
		if strings.Contains(p, "hangdog") && !cache.MatchString(p) {
			t.Errorf("uninstalling left %s", p)
		}
	}
	left, _ := filepath.Glob(filepath.Join(w.home, ".claude/plugins/cache/hangdog/hangdog/*/.orphaned_at"))
	if _, err := os.Stat(filepath.Join(w.home, ".claude/plugins/cache/hangdog")); err == nil && len(left) == 0 {
		t.Errorf("the plugin's cached copy is left and not marked orphaned")
	}
	if _, err := os.Stat(w.hdHome); err == nil {
		t.Errorf("installing and uninstalling the plugin made hangdog's home %s", w.hdHome)
	}
}

// hookConfig is the "hooks" object of a Claude Code settings or plugin
// hooks file.
type hookConfig map[string][]struct {
	Matcher string `json:"matcher"`
	Hooks   []struct {
		Type    string `json:"type"`
		Command string `json:"command"`
		Timeout int    `json:"timeout"`
	} `json:"hooks"`
}

func readHooks(t *testing.T, path string) hookConfig {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f struct{ Hooks hookConfig }
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return f.Hooks
}

// The plugin's hooks are the recipe's (scripts/claude-code/settings.json):
// the same events, matchers, commands and timeouts (the plugin's MCP bash,
// like the recipe's, needs no hook: its server is the session's).
func TestPluginHooksAreTheRecipes(t *testing.T) {
	recipe := readHooks(t, filepath.Join(repoRoot, "scripts/claude-code/settings.json"))
	plugin := readHooks(t, filepath.Join(repoRoot, "plugins/claude-code/hooks/hooks.json"))
	if len(recipe) != len(plugin) {
		t.Errorf("the recipe hooks %d events, the plugin %d", len(recipe), len(plugin))
	}
	for event, want := range recipe {
		got := plugin[event]
		if len(got) != len(want) {
			t.Errorf("%s: the plugin has %d entries, the recipe %d", event, len(got), len(want))
			continue
		}
		for i := range want {
			if got[i].Matcher != want[i].Matcher {
				t.Errorf("%s: the plugin's matcher is %q, want %q", event, got[i].Matcher, want[i].Matcher)
			}
			b1, _ := json.Marshal(got[i].Hooks)
			b2, _ := json.Marshal(want[i].Hooks)
			if string(b1) != string(b2) {
				t.Errorf("%s: the plugin runs %s, the recipe %s", event, b1, b2)
			}
		}
	}
}
