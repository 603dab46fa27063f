// Package testbin builds the hangdog binary for tests that drive it as users
// do — the supervisor is that binary re-executed — built the way `make
// build` builds it.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Build compiles cmd/hangdog into dir and returns the binary's path.
func Build(dir string) (string, error) {
	bin := filepath.Join(dir, "hangdog")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/hangdog/hangdog/cmd/hangdog")
	// Static, as `make build` makes it: no dynamic loader at every start.
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build hangdog: %v\n%s", err, out)
	}
	return bin, nil
}
