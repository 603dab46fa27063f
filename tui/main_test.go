package tui

import (
	"fmt"
	"os"
	"testing"

	"github.com/hangdog/hangdog/internal/testbin"
	"github.com/hangdog/hangdog/taskctl"
)

// hangdogBin is the whole CLI, for tests that compare the shell with it.
var hangdogBin string

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
	hangdogBin = bin
	taskctl.Executable = testbin.Supervisor(bin)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
