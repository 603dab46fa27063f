package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSummaryOfARealRun runs go test -json on a module with a passing, a
// failing and a skipping package through testsummary, and checks it prints
// what plain go test prints, then the skips with their reasons, then FAIL.
func TestSummaryOfARealRun(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"good/good_test.go": `package good
import "testing"
func TestPasses(t *testing.T) { t.Log("quiet when passing") }
`,
		"bad/bad_test.go": `package bad
import "testing"
func TestFails(t *testing.T) { t.Error("boom") }
func TestPassesBeside(t *testing.T) { t.Log("also quiet") }
func TestNested(t *testing.T) { t.Run("inner", func(t *testing.T) { t.Error("deep") }) }
`,
		"skippy/skippy_test.go": `package skippy
import "testing"
func TestSkips(t *testing.T) { t.Skip("no widget on this machine") }
func TestSub(t *testing.T) {
	t.Run("inner", func(t *testing.T) { t.Skip("inner needs a gadget") })
}
`,
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	code := run([]string{"go", "-C", dir, "test", "-json", "-count=1", "./..."}, &out)
	got := out.String()
	t.Logf("output:\n%s", got)
	if code != 1 {
		t.Errorf("exit status %d, want go test's 1", code)
	}
	for _, want := range []string{
		"ok  \texample.com/m/good\t",
		"--- FAIL: TestFails",
		"bad_test.go:3: boom",
		"FAIL\texample.com/m/bad\t",
		// A subtest under its parent, indented as plain go test does.
		"--- FAIL: TestNested (0.00s)\n    --- FAIL: TestNested/inner (0.00s)\n        bad_test.go:5: deep\n",
		"ok  \texample.com/m/skippy\t",
		"skipped 2 tests",
		"--- SKIP: TestSkips",
		"no widget on this machine",
		"--- SKIP: TestSub/inner",
		"inner needs a gadget",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	for _, unwanted := range []string{"=== RUN", "quiet when passing", "also quiet", "--- PASS"} {
		if strings.Contains(got, unwanted) {
			t.Errorf("output has %q, which plain go test does not print", unwanted)
		}
	}
	// The skips come after every package line, and go test's FAIL closes.
	if i, j := strings.Index(got, "skipped 2 tests"), strings.LastIndex(got, "example.com/m/bad\t"); i < j {
		t.Errorf("the skips are listed before the last package line")
	}
	lines := strings.Split(strings.TrimRight(got, "\n"), "\n")
	if last := lines[len(lines)-1]; last != "FAIL" {
		t.Errorf("last line %q, want go test's closing FAIL", last)
	}

	// A passing run: go test's status 0, and no FAIL anywhere.
	out.Reset()
	if code := run([]string{"go", "-C", dir, "test", "-json", "-count=1", "./good"}, &out); code != 0 {
		t.Errorf("a passing run exited %d", code)
	}
	if got := out.String(); !strings.HasPrefix(got, "ok  \texample.com/m/good\t") || strings.Contains(got, "FAIL") || strings.Contains(got, "skipped") {
		t.Errorf("a passing run printed %q, want only go test's ok line", got)
	}
}
