package settings

import (
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

func BenchmarkSetInFile(b *testing.B) {
	path := filepath.Join(b.TempDir(), "config.yaml")
	b.ReportAllocs()
	for b.Loop() {
		if err := SetInFile(path, "confidence", "0.7"); err != nil {
			b.Fatal(err)
		}
	}
}
