//go:build linux

package faults

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"go.yaml.in/yaml/v3"
)

// Every key set at once by its own process: all of them kept, and the
// file's comments and its unknown key too. Before the lock around the
// read-modify-write only 3 to 7 of 18 survived.
func TestConcurrentConfigSetKeepsEveryKey(t *testing.T) {
	w := newWorld(t)
	userFile := filepath.Join(w.cfg, "hangdog", "config.yaml")
	os.MkdirAll(filepath.Dir(userFile), 0o700)
	const head = "# my settings, keep this line\nmine: 1 # and this key\n"
	os.WriteFile(userFile, []byte(head), 0o600)
	project := filepath.Join(w.root, "repo")
	os.MkdirAll(project, 0o755)

	sets := [][2]string{
		{"watchdog.enabled", "true"}, {"watchdog.intervalMin", "4"}, {"watchdog.firstCheckMin", "3"},
		{"watchdog.confidence", "0.6"}, {"watchdog.agreeChecks", "3"}, {"watchdog.action", "warn"},
		{"watchdog.watchBash", "true"}, {"watchdog.watchBgTasks", "true"}, {"watchdog.otherTools", "off"},
		{"watchdog.inputWaitSec", "12"}, {"watchdog.debug", "false"}, {"watchdog.decisionModel.source", "inherit"},
		{"watchdog.decisionModel.backend", "local"}, {"watchdog.decisionModel.url", "http://127.0.0.1:1/v1"},
		{"watchdog.decisionModel.model", "m"}, {"watchdog.decisionModel.apiKeyEnv", "MY_KEY"},
		{"watchdog.decisionModel.timeoutSec", "21"}, {"tasks.keepDays", "8"},
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []string
	run := func(dir string, args ...string) {
		defer wg.Done()
		c := w.command(t.Context(), args...)
		c.Dir = dir
		if out, err := c.CombinedOutput(); err != nil {
			mu.Lock()
			failures = append(failures, strings.Join(args, " ")+": "+err.Error()+": "+string(out))
			mu.Unlock()
		}
	}
	for _, kv := range sets {
		wg.Add(1)
		go run(w.root, "config", "set", kv[0], kv[1])
	}
	// Two more at once on a project file.
	for _, kv := range [][2]string{{"watchdog.agreeChecks", "4"}, {"watchdog.action", "kill"}} {
		wg.Add(1)
		go run(project, "config", "set", "--project", kv[0], kv[1])
	}
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("config set failed:\n%s", strings.Join(failures, "\n"))
	}

	data, _ := os.ReadFile(userFile)
	if !strings.HasPrefix(string(data), head) {
		t.Errorf("the file's comments and first key were not kept at its top:\n%s", data)
	}
	var tree map[string]any
	if err := yaml.Unmarshal(data, &tree); err != nil {
		t.Fatalf("the user file is no longer YAML: %v\n%s", err, data)
	}
	for _, kv := range sets {
		if got := leaf(tree, kv[0]); got != kv[1] {
			t.Errorf("%s = %q, want %q", kv[0], got, kv[1])
		}
	}
	pdata, _ := os.ReadFile(filepath.Join(project, ".hangdog.yaml"))
	var ptree map[string]any
	yaml.Unmarshal(pdata, &ptree)
	if leaf(ptree, "watchdog.agreeChecks") != "4" || leaf(ptree, "watchdog.action") != "kill" {
		t.Errorf("project file lost a key:\n%s", pdata)
	}
	if t.Failed() {
		t.Logf("user file:\n%s", data)
	}
}

// leaf is a dotted key's value in a YAML tree, as text ("" if absent).
func leaf(tree map[string]any, key string) string {
	parts := strings.Split(key, ".")
	var cur any = tree
	for _, p := range parts {
		m, ok := cur.(map[string]any)
		if !ok {
			return ""
		}
		cur = m[p]
	}
	if cur == nil {
		return ""
	}
	switch v := cur.(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return yamlText(cur)
}

func yamlText(v any) string {
	b, _ := yaml.Marshal(v)
	return strings.TrimSpace(string(b))
}
