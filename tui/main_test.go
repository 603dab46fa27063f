package tui

import (
	"fmt"
	"github.com/hangdog/hangdog/internal/testbin"
	"os"
	"testing"

	"github.com/hangdog/hangdog/supervisor"
)

// hangdogBin is the hangdog binary the tmux tests drive, as users run it.
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
	supervisor.Executable = testbin.Supervisor(bin)
	hangdogBin = bin
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
