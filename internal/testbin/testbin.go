// Package testbin builds hangdog for tests that drive it as users do, the
// way `make build` builds it: the lite hangdog, and next to it hangdog-full
// (the shell, the settings screen, the MCP server), the slim
// hangdog-supervisor it starts for every task and the slim hangdog-watch
// that runs a home's watchers.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// builds are the binaries `make build` makes: output name, package, tags.
var builds = []struct{ name, pkg, tags string }{
	{"hangdog", "./cmd/hangdog", "lite"},
	{"hangdog-full", "./cmd/hangdog", ""},
	{"hangdog-supervisor", "./cmd/hangdog-supervisor", ""},
	{"hangdog-watch", "./cmd/hangdog-watch", ""},
}

// Build compiles the binaries into dir, concurrently, and returns hangdog's
// path.
func Build(dir string) (string, error) {
	errs := make(chan error, len(builds))
	for _, b := range builds {
		go func() {
			cmd := exec.Command("go", "build", "-tags", b.tags, "-o", filepath.Join(dir, b.name), "github.com/hangdog/hangdog/"+b.pkg[2:])
			// Static, as `make build` makes it: no dynamic loader at every start.
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("build %s: %v\n%s", b.name, err, out)
				return
			}
			errs <- nil
		}()
	}
	var first error
	for range builds {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		return "", first
	}
	return filepath.Join(dir, "hangdog"), nil
}

// Supervisor is the supervisor binary Build put next to hangdog at bin.
func Supervisor(bin string) string {
	return filepath.Join(filepath.Dir(bin), "hangdog-supervisor")
}

// MCPStub builds the stdio MCP server written for the tests of the MCP
// proxy (internal/testbin/mcpstub) into dir and returns its path.
func MCPStub(dir string) (string, error) {
	out := filepath.Join(dir, "mcpstub")
	cmd := exec.Command("go", "build", "-o", out, "github.com/hangdog/hangdog/internal/testbin/mcpstub")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build mcpstub: %v\n%s", err, b)
	}
	return out, nil
}
