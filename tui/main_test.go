package tui

import (
	"fmt"
	"github.com/hangdog/hangdog/internal/testbin"
	"os"
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
	bin, err := testbin.Build(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(dir)
		os.Exit(2)
	}
	supervisor.Executable = bin
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
