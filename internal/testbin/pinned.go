package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Pinned describes an agent CLI the e2e tests run at one version.
type Pinned struct {
	Name      string // the command, e.g. claude
	Version   string // what `NAME --version` must print
	EnvBin    string // a variable naming the binary to use instead
	EnvPrefix string // a variable naming the npm prefix it is installed under
	Dir       string // the default prefix's folder under $TMPDIR/hangdog-e2e
	Package   string // the npm package, for the install hint
	Installer string // who installs it, for the hint (".ci/run")
}

// Find looks for the pinned CLI: $EnvBin, then NAME on PATH, then the
// prefix the installer uses. Without it, why says what was found and how to
// install the right one.
func (p Pinned) Find() (path, why string) {
	prefix := os.Getenv(p.EnvPrefix)
	if prefix == "" {
		prefix = filepath.Join(os.TempDir(), "hangdog-e2e", p.Dir)
	}
	var tried []string
	for _, c := range []string{os.Getenv(p.EnvBin), p.Name, filepath.Join(prefix, "bin", p.Name)} {
		if c == "" {
			continue
		}
		path, err := exec.LookPath(c)
		if err != nil {
			continue
		}
		out, _ := exec.Command(path, "--version").Output()
		if strings.Contains(string(out), p.Version) {
			return path, ""
		}
		tried = append(tried, fmt.Sprintf("%s is %q", path, strings.TrimSpace(string(out))))
	}
	found := ""
	if len(tried) > 0 {
		found = " (found " + strings.Join(tried, "; ") + ")"
	}
	return "", fmt.Sprintf("%s %s is not installed%s: %s installs it with npm (npm install -g --prefix %s %s@%s), or set %s",
		p.Name, p.Version, found, p.Installer, prefix, p.Package, p.Version, p.EnvBin)
}
