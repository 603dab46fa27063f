package layout

import (
	"bufio"
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
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
	{"internal/hiddenarg", "internal/agentprofile", "internal/procusage", "internal/unixsock", "internal/binstruct", "internal/termtext", "internal/termtext/screen", "internal/keys", "internal/rawterm", "internal/tailbuf", "internal/webhooksig", "internal/peerproc", "internal/inotify", "internal/syncbuf", "internal/safefile", "internal/ctxtime", "internal/taskstate", "settings/watchdogconf"},
	{"bgtasks", "settings", "jev", "jev/askproc", "jev/remote", "jev/internal/shell"},
	{"fleet", "fleet/autostart", "fleet/natstest", "supervisor/proto", "supervisor/spawn", "supervisor/activity", "supervisor/sampler", "supervisor/watchdog"},
	{"supervisor", "taskctl", "watch", "wake", "wake/fleetsource", "mcpproxy"},
	{"receiver", "receiver/sink", "approval"},
	{"watchctl", "watchctl/runner"},
	{"tui", "tui/settingsview", "tui/internal/teawait", "tui/internal/frame", "mcpserver", "cchook"},
	{"cmd/hangdog", "cmd/hangdog/internal/earlyrun", "cmd/hangdog-supervisor", "cmd/hangdog-watch", "internal/testbin", "internal/testbin/mcpstub", "internal/layout", "scripts", "scripts/testsummary", "scripts/fleetlocal", "scripts/bench-watchers/refsched", "faults", "e2e/claudecode", "e2e/codex"},
}

// onlyFor limits who may import a package beyond the layers: the
// supervisor process is run by the programs, and a front end reaches it
// only through taskctl, so none links the check loop it does not run.
var onlyFor = map[string]map[string]bool{
	"supervisor": {"cmd/hangdog": true, "cmd/hangdog-supervisor": true},
}

// apart lists what a package may not depend on at all, directly or
// through another, though the layers would allow it: the supervisor's wire
// contract is free of the task's records on disk (it has wire forms of its
// own, converted in taskctl and supervisor), so the two change apart.
var apart = map[string][]string{
	"supervisor/proto": {"bgtasks"},
}

// TestKeptApart checks apart, with and without the lite tag, tests
// included.
func TestKeptApart(t *testing.T) {
	dir := root(t)
	for pkg, banned := range apart {
		for _, tags := range []string{"", "lite"} {
			cmd := exec.Command("go", "list", "-tags", tags, "-deps", "-test", module+"/"+pkg)
			cmd.Dir = dir
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("go list -deps %s: %v", pkg, err)
			}
			deps := map[string]bool{}
			for _, d := range strings.Fields(string(out)) {
				deps[strings.TrimPrefix(d, module+"/")] = true
			}
			for _, b := range banned {
				if deps[b] {
					t.Errorf("%s depends on %s (tags %q); keep it apart: see apart in internal/layout/layout_test.go", pkg, b, tags)
				}
			}
		}
	}
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
var taskFiles = []string{"output.log", "sock", "supervisor.log", "result.json", "meta.json", "watchdog.log", "checks.log", "calls.json"}

// TestTaskFileNamesOnlyInBgtasks looks for those names as string literals
// (whole, or as a path's last element) in every Go file outside bgtasks,
// tests included.
func TestTaskFileNamesOnlyInBgtasks(t *testing.T) {
	goFiles(t, true, func(pkg string, fset *token.FileSet, f *ast.File) {
		if pkg == "bgtasks" || pkg == "internal/layout" {
			return
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
	})
}

// goFiles parses every Go file of the module outside hidden directories
// (tests only with tests) and calls fn with its package directory
// (relative to the module root) and its syntax.
func goFiles(t *testing.T, tests bool, fn func(pkg string, fset *token.FileSet, f *ast.File)) {
	t.Helper()
	dir := root(t)
	fset := token.NewFileSet()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || !tests && strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		fn(filepath.ToSlash(filepath.Dir(rel)), fset, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// imports maps the names a file refers to its module packages by to their
// paths within the module.
func imports(f *ast.File) map[string]string {
	m := map[string]string{}
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		rel, ok := strings.CutPrefix(p, module+"/")
		if !ok {
			continue
		}
		name := rel[strings.LastIndex(rel, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		m[name] = rel
	}
	return m
}

// TestOnlyTheWatcherServiceStartsWatchersAndKnowsTheLinkBase: the
// watchers' runner task (hangdog __watch) is started by watchctl alone; the CLI only
// registers the runner's command (its Use) and the lite hangdog hands it
// over. The receiver is started, and $HANGDOG_RECEIVER_URL read, by
// watchctl alone: every link gets its base there.
func TestOnlyTheWatcherServiceStartsWatchersAndKnowsTheLinkBase(t *testing.T) {
	goFiles(t, false, func(pkg string, fset *token.FileSet, f *ast.File) {
		if pkg == "watchctl" || pkg == "watchctl/runner" || pkg == "internal/hiddenarg" {
			return
		}
		names := imports(f)
		// Where the CLI may name the runner's argument: a command's Use, a
		// hand-over's name.
		allowed := map[ast.Node]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.KeyValueExpr:
				if k, ok := n.Key.(*ast.Ident); ok && k.Name == "Use" {
					ast.Inspect(n.Value, func(m ast.Node) bool { allowed[m] = true; return true })
				}
			case *ast.CallExpr:
				if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "handOver" && len(n.Args) > 0 {
					allowed[n.Args[0]] = true
				}
			}
			return true
		})
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				x, ok := n.X.(*ast.Ident)
				if !ok {
					return true
				}
				switch p := names[x.Name]; {
				case p == "internal/hiddenarg" && n.Sel.Name == "Watch" && !(pkg == "cmd/hangdog" && allowed[n]):
					t.Errorf("%s: hiddenarg.Watch outside the watcher service: only watchctl starts a watcher's task", fset.Position(n.Pos()))
				case p == "receiver" && n.Sel.Name == "Ensure":
					t.Errorf("%s: receiver.Ensure outside the watcher service: a link's base is watchctl's", fset.Position(n.Pos()))
				}
			case *ast.BasicLit:
				s, err := strconv.Unquote(n.Value)
				if n.Kind != token.STRING || err != nil {
					return true
				}
				if s == "__watch" || s == "HANGDOG_RECEIVER_URL" {
					t.Errorf("%s: %q outside the watcher service: name it through watchctl (or hiddenarg)", fset.Position(n.Pos()), s)
				}
			}
			return true
		})
	})
}

// TestNoPackageVariableAssignedFromOutside: a package's variables are set
// by its own code only (tests aside, which may set a seam): no init of
// another package points one at something of its own, as a global set
// from an init once stood in for a watcher service.
func TestNoPackageVariableAssignedFromOutside(t *testing.T) {
	goFiles(t, false, func(pkg string, fset *token.FileSet, f *ast.File) {
		names := imports(f)
		check := func(lhs ast.Expr) {
			sel, ok := lhs.(*ast.SelectorExpr)
			if !ok {
				return
			}
			if x, ok := sel.X.(*ast.Ident); ok && names[x.Name] != "" {
				t.Errorf("%s: assigns %s.%s, a variable of another package", fset.Position(sel.Pos()), x.Name, sel.Sel.Name)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				for _, l := range n.Lhs {
					check(l)
				}
			case *ast.IncDecStmt:
				check(n.X)
			}
			return true
		})
	})
}
