package tui

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/hangdog/hangdog/supervisor"
)

// TestMain builds the hangdog binary once: a supervisor is that binary
// re-executed, so commands in these tests run as they do for users.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "hdtui")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	bin := filepath.Join(dir, "hangdog")
	build := exec.Command("go", "build", "-o", bin, "github.com/hangdog/hangdog/cmd/hangdog")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build hangdog:", err)
		os.RemoveAll(dir)
		os.Exit(2)
	}
	supervisor.Executable = bin
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
