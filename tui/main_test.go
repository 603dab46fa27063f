package tui

import (
	"fmt"
	"os"
	"testing"

	"github.com/hangdog/hangdog/internal/testbin"

	"github.com/hangdog/hangdog/taskctl"
)

// TestMain builds hangdog and its supervisor once, so commands in these tests
// run under the supervisor users get.
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
	taskctl.Executable = testbin.Supervisor(bin)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
