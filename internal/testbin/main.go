package testbin

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Main is a TestMain for a package that drives hangdog's binaries: it
// builds them into a fresh directory named with prefix, hands hangdog's
// path to built, runs the tests and removes the directory. A failed build
// fails the package. With build false nothing is built (a package whose
// tests all skip without a tool it needs).
func Main(m *testing.M, prefix string, build bool, built func(bin string)) {
	// The tests start from no session: run by an agent (a Claude Code
	// session sets CLAUDE_CODE_SESSION_ID for its commands), the hangdog
	// they start would otherwise take that session for theirs.
	for _, v := range []string{"HANGDOG_SESSION", "CLAUDE_CODE_SESSION_ID"} {
		os.Unsetenv(v)
	}
	if !build {
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testbin:", err)
		os.Exit(2)
	}
	bin, err := Build(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(dir)
		os.Exit(2)
	}
	built(bin)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// Dir is the directory Build put the binaries in, from hangdog's path.
func Dir(bin string) string { return filepath.Dir(bin) }
