package layout

import (
	"bufio"
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/hangdog/hangdog"

// layers, lowest first. A package may import packages of lower layers, and
// of its own layer only within its own family (its first path element, so
// supervisor may import supervisor/proto, but taskctl may not import
// supervisor, nor tui mcpserver). A package must be listed here: a new one
// is placed on purpose.
var layers = [][]string{
	{"internal/hiddenarg", "internal/agentprofile", "internal/procusage", "internal/unixsock", "internal/binstruct", "internal/termtext", "internal/keys", "internal/rawterm", "internal/tailbuf", "internal/webhooksig", "internal/peerproc", "internal/inotify", "internal/syncbuf", "settings/watchdogconf"},
	{"bgtasks", "settings", "jev", "jev/askproc", "jev/remote", "jev/internal/shell"},
	{"supervisor/proto", "supervisor/spawn", "supervisor/activity", "supervisor/sampler", "supervisor/watchdog"},
	{"supervisor", "taskctl", "watch", "wake"},
	{"tui", "tui/screen", "tui/settingsview", "tui/internal/teawait", "tui/internal/frame", "mcpserver", "receiver", "approval", "cchook"},
	{"cmd/hangdog", "cmd/hangdog/internal/earlyrun", "cmd/hangdog-supervisor", "internal/testbin", "internal/layout", "scripts", "faults", "e2e/claudecode", "e2e/codex"},
}

// onlyFor limits who may import a package beyond the layers: the
// supervisor process is run by the programs, and a front end reaches it
// only through taskctl, so none links the check loop it does not run.
var onlyFor = map[string]map[string]bool{
	"supervisor": {"cmd/hangdog": true, "cmd/hangdog-supervisor": true},
}

func rankOf() map[string]int {
	m := map[string]int{}
	for i, l := range layers {
		for _, p := range l {
			m[p] = i
		}
	}
	return m
}

// family is what a package belongs with: its first path element, or for
// internal/ and cmd/ its first two (each of those is its own).
func family(p string) string {
	parts := strings.SplitN(p, "/", 3)
	if len(parts) > 1 && (parts[0] == "internal" || parts[0] == "cmd") {
		return parts[0] + "/" + parts[1]
	}
	return parts[0]
}

func root(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	return filepath.Dir(strings.TrimSpace(string(out)))
}

// TestNoPackageImportsUpward checks every package's imports (with and
// without the lite tag) against the layers above.
func TestNoPackageImportsUpward(t *testing.T) {
	dir := root(t)
	rank := rankOf()
	for _, tags := range []string{"", "lite"} {
		cmd := exec.Command("go", "list", "-tags", tags, "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./...")
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list: %v", err)
		}
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			pkg, ok := strings.CutPrefix(f[0], module+"/")
			if !ok {
				continue
			}
			r, ok := rank[pkg]
			if !ok {
				t.Errorf("%s is in no layer: add it to layers in %s", pkg, "internal/layout/layout_test.go")
				continue
			}
			for _, imp := range f[1:] {
				ip, ok := strings.CutPrefix(imp, module+"/")
				if !ok {
					continue
				}
				ir, ok := rank[ip]
				switch {
				case !ok:
					t.Errorf("%s imports %s, which is in no layer", pkg, ip)
				case ir > r:
					t.Errorf("%s (layer %d) imports %s (layer %d), above it", pkg, r, ip, ir)
				case ir == r && family(ip) != family(pkg):
					t.Errorf("%s imports %s, a package of its own layer outside its family", pkg, ip)
				case onlyFor[ip] != nil && !onlyFor[ip][pkg]:
					t.Errorf("%s imports %s, which only %v may", pkg, ip, onlyFor[ip])
				}
			}
		}
	}
}

// taskFiles are the names of a task directory's files; only bgtasks spells
// them (its path methods are how everyone else finds them).
var taskFiles = []string{"output.log", "sock", "supervisor.log", "result.json", "meta.json", "watchdog.log"}

// TestTaskFileNamesOnlyInBgtasks looks for those names as string literals
// (whole, or as a path's last element) in every Go file outside bgtasks,
// tests included.
func TestTaskFileNamesOnlyInBgtasks(t *testing.T) {
	dir := root(t)
	fset := token.NewFileSet()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if d.IsDir() {
			if rel == "bgtasks" || rel == "internal/layout" || strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			for _, name := range taskFiles {
				if s == name || strings.HasSuffix(s, "/"+name) {
					t.Errorf("%s: %q names a task directory's file; use bgtasks' path methods", fset.Position(lit.Pos()), s)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
