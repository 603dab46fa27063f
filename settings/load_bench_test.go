package settings

import (
	"fmt"
	"path/filepath"
	"testing"
)

// BenchmarkLoad measures what every hangdog start pays: both files, the
// environment and flags, through validation and viper.
func BenchmarkLoad(b *testing.B) {
	root := b.TempDir()
	userFile := filepath.Join(root, "config.yaml")
	work := filepath.Join(root, "repo", "a", "b")
	if err := SetInFile(userFile, "intervalMin", "0.5"); err != nil {
		b.Fatal(err)
	}
	if err := SetInFile(userFile, "decisionModel.backend", "openai"); err != nil {
		b.Fatal(err)
	}
	if err := SetInFile(filepath.Join(root, "repo", ProjectFileName), "action", "warn"); err != nil {
		b.Fatal(err)
	}
	opts := Options{
		Dir: work, UserFile: userFile,
		Env:   mapEnv(map[string]string{"HANGDOG_WATCHDOG_CONFIDENCE": "0.7"}),
		Flags: map[string]string{"debug": "true"},
	}
	b.ReportAllocs()
	for b.Loop() {
		s, err := Load(opts)
		if err != nil {
			b.Fatal(err)
		}
		if s.Watchdog().Action != "warn" {
			b.Fatal("project layer lost")
		}
	}
}

// BenchmarkLoadProcessEnv is a load as the MCP server and the CLI do one:
// the process's own environment, checked for misspelt HANGDOG_ names, with
// the forty or so variables an agent's shell carries.
func BenchmarkLoadProcessEnv(b *testing.B) {
	root := b.TempDir()
	for i := range 40 {
		b.Setenv(fmt.Sprintf("AGENT_VAR_%d", i), "value")
	}
	b.Setenv("HANGDOG_WATCHDOG_CONFIDENCE", "0.7")
	opts := Options{Dir: root, UserFile: filepath.Join(root, "config.yaml")}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(opts); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSetInFile(b *testing.B) {
	path := filepath.Join(b.TempDir(), "config.yaml")
	b.ReportAllocs()
	for b.Loop() {
		if err := SetInFile(path, "confidence", "0.7"); err != nil {
			b.Fatal(err)
		}
	}
}
