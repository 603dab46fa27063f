// Command testsummary runs `go test -json …` and prints what plain `go test`
// prints (a line per package; the output of failing tests and failed
// builds), then every skipped test with its reason, which plain `go test`
// shows only under -v. `make test` runs the suite through it, so a test that
// skips on a machine without some program says so in the summary.
//
//	testsummary go test -json -race ./...
//
// Its exit status is the command's. The last line is go test's own final
// FAIL when something failed.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	ImportPath string // build-output events
}

// line is one line of a package's output and the test it belongs to.
type line struct {
	test, text string
}

// pkgState is a package's output while its tests run.
type pkgState struct {
	lines []line
	// ended: the final action of each test that finished (pass, fail, skip).
	ended map[string]string
}

// skip is a skipped test and what it printed (its --- SKIP line first, then
// its reason).
type skip struct {
	pkg, test string
	lines     []string
}

// summary turns a go test -json stream into plain go test output.
type summary struct {
	out   io.Writer
	pkgs  map[string]*pkgState
	skips []skip
	// finalFail: go test's closing FAIL line, held for after the skips;
	// anyFailed: a package failed, so plain go test would close with FAIL.
	finalFail, anyFailed bool
}

func newSummary(out io.Writer) *summary {
	return &summary{out: out, pkgs: map[string]*pkgState{}}
}

// framing lines are what -json's implied -v adds; plain go test omits them.
func framing(s string) bool {
	for _, p := range []string{"=== RUN", "=== PAUSE", "=== CONT", "=== NAME"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// feed takes one line of the stream.
func (s *summary) feed(raw string) {
	var ev event
	if !strings.HasPrefix(raw, "{") || json.Unmarshal([]byte(raw), &ev) != nil {
		// Not an event: go test's own text (its closing FAIL, a message).
		if strings.TrimSpace(raw) == "FAIL" {
			s.finalFail = true
			return
		}
		fmt.Fprintln(s.out, raw)
		return
	}
	switch ev.Action {
	case "build-output":
		// A failed build's compiler messages, as go test prints them.
		fmt.Fprint(s.out, ev.Output)
		return
	case "build-fail":
		return
	}
	p := s.pkgs[ev.Package]
	if p == nil {
		p = &pkgState{ended: map[string]string{}}
		s.pkgs[ev.Package] = p
	}
	switch ev.Action {
	case "output":
		p.lines = append(p.lines, line{ev.Test, ev.Output})
	case "pass", "fail", "skip":
		if ev.Test != "" {
			p.ended[ev.Test] = ev.Action
			return
		}
		s.endPackage(ev.Package, p, ev.Action == "fail")
		delete(s.pkgs, ev.Package)
	}
}

// endPackage prints a finished package as plain go test would and keeps its
// skipped tests for the summary.
func (s *summary) endPackage(pkg string, p *pkgState, failed bool) {
	if failed {
		s.anyFailed = true
	}
	// Each test's lines, in the order the tests first spoke.
	byTest := map[string][]string{}
	var order []string
	for _, l := range p.lines {
		if l.test == "" || framing(l.text) {
			continue
		}
		if _, ok := byTest[l.test]; !ok {
			order = append(order, l.test)
		}
		byTest[l.test] = append(byTest[l.test], l.text)
	}
	for _, t := range order {
		if p.ended[t] == "skip" {
			s.skips = append(s.skips, skip{pkg: pkg, test: t, lines: resultFirst(byTest[t])})
		}
	}
	if failed {
		// The failed tests, and those that never finished (a panic, a
		// timeout): each parent before its subtests, as plain go test
		// nests them.
		children := map[string][]string{}
		var roots []string
		for _, t := range order {
			parent := t[:max(0, strings.LastIndexByte(t, '/'))]
			if _, ok := byTest[parent]; ok && parent != "" {
				children[parent] = append(children[parent], t)
			} else {
				roots = append(roots, t)
			}
		}
		var show func(tests []string)
		show = func(tests []string) {
			for _, t := range tests {
				if e := p.ended[t]; e == "pass" || e == "skip" {
					continue
				}
				indent := strings.Repeat("    ", strings.Count(t, "/"))
				for _, l := range resultFirst(byTest[t]) {
					fmt.Fprint(s.out, indent+l)
				}
				show(children[t])
			}
		}
		show(roots)
	}
	for _, l := range p.lines {
		// The package's own lines; a passing package's PASS is not shown.
		if l.test == "" && !framing(l.text) && (failed || strings.TrimSpace(l.text) != "PASS") {
			fmt.Fprint(s.out, l.text)
		}
	}
}

// resultFirst puts a test's --- FAIL/--- SKIP line before what it logged,
// where plain go test prints it (test2json reports it after).
func resultFirst(lines []string) []string {
	var result, rest []string
	for _, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "--- ") {
			result = append(result, l)
		} else {
			rest = append(rest, l)
		}
	}
	return append(result, rest...)
}

// finish prints the skipped tests and go test's closing FAIL.
func (s *summary) finish() {
	// Packages that never ended (go test was killed): show what they said.
	for pkg, p := range s.pkgs {
		s.endPackage(pkg, p, true)
	}
	if len(s.skips) > 0 {
		tests := "tests"
		if len(s.skips) == 1 {
			tests = "test"
		}
		fmt.Fprintf(s.out, "skipped %d %s (go test -v shows each where it runs):\n", len(s.skips), tests)
		for _, sk := range s.skips {
			for i, l := range sk.lines {
				l = strings.TrimSpace(l)
				if i == 0 {
					fmt.Fprintf(s.out, "%s  %s\n", l, sk.pkg)
				} else {
					fmt.Fprintf(s.out, "    %s\n", l)
				}
			}
		}
	}
	// Plain go test closes with FAIL when a package failed; -json does not.
	if s.anyFailed || s.finalFail {
		fmt.Fprintln(s.out, "FAIL")
	}
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: testsummary go test -json [flags] [packages]")
		os.Exit(2)
	}
	os.Exit(run(os.Args[1:], os.Stdout))
}

// run runs the command, summarising its output into out, and returns its
// exit status.
func run(args []string, out io.Writer) int {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin = os.Stdin
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		return 2
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "testsummary: start %s: %v\n", strings.Join(args, " "), err)
		return 2
	}
	s := newSummary(out)
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	for sc.Scan() {
		s.feed(sc.Text())
	}
	scanErr := sc.Err()
	if scanErr != nil {
		// Drain the rest so the command is not blocked writing to us.
		_, _ = io.Copy(io.Discard, stdout)
	}
	waitErr := cmd.Wait()
	s.finish()
	if scanErr != nil {
		fmt.Fprintln(os.Stderr, "testsummary: reading go test's output:", scanErr)
		return 2
	}
	var exit *exec.ExitError
	if errors.As(waitErr, &exit) {
		return exit.ExitCode()
	}
	if waitErr != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", waitErr)
		return 2
	}
	return 0
}
