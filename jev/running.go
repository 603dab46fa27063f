package jev

import (
	"fmt"
	"strings"

	"github.com/hangdog/hangdog/internal/termtext"
)

// Judging what runs now, not only the command line: the processes the
// sampler found doing the work, their argv from /proc.

// runningExpect widens the command line's Expect by what runs now: `echo
// waiting…; flock -w 45 lock cmd` starts with a quick echo, but what runs is
// flock, which the command line's first word says nothing about. The longest
// expectation wins, so this can only make the judge wait longer.
func (s *scene) runningExpect() {
	f := s.facts
	cur := rankOf(f.expect)
	for _, argv := range s.st.Running {
		if len(argv) == 0 || isShell(commandName(argv[0])) {
			continue
		}
		g := analyzeCommand(quoteArgv(argv))
		if r := rankOf(g.expect); r > cur {
			cur = r
			f.expect, f.expectConf = g.expect, g.expectConf
			f.expectWhy = "running now: " + g.expectWhy
		}
	}
}

func rankOf(expect string) int {
	for i, e := range expectRank {
		if e == expect {
			return i
		}
	}
	return rankMinutes
}

func isShell(name string) bool {
	switch name {
	case "sh", "bash", "dash", "zsh", "ksh", "ash", "make", "gmake":
		return true
	}
	return false
}

// quoteArgv makes an argv one shell word per argument again.
func quoteArgv(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
		}) < 0 {
			parts[i] = a
			continue
		}
		parts[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(parts, " ")
}

// quietRetry reports a quiet retry loop: the same short-lived command started
// again and again since the last output, in a command line that loops until
// something succeeds (`until curl -fs URL; do sleep 2; done`) or forever. Two
// starts are enough. Repeats alone are not: a silent script that runs the
// same `curl -s URL` a hundred times ends by itself, and without the tries'
// exit status (bash reaps them) nothing tells the two apart.
func (s *scene) quietRetry() (Answer, bool) {
	st := s.st
	loop := s.facts.loops.polls != "" || s.facts.loops.forever
	if st.Repeats < 2 || !loop {
		return Answer{}, false
	}
	ev := []string{
		fmt.Sprintf("`%s` was started %d times since the last output, and nothing was printed: a retry loop getting nowhere",
			termtext.Clip(Printable(st.Repeated), 60), st.Repeats),
		"no output for " + fmtDuration(st.SinceOutput),
	}
	if s.facts.loops.polls != "" {
		ev = append(ev, fmt.Sprintf("the command line loops until `%s` succeeds", termtext.Clip(s.facts.loops.polls, 40)))
	}
	return choiceAnswer(Status, Looping, 0.88, ev), true
}

// runningEvidence lists what runs now, for the model and the log.
func runningEvidence(running [][]string) string {
	if len(running) == 0 {
		return ""
	}
	var names []string
	for _, a := range running[:min(len(running), 3)] {
		names = append(names, "`"+termtext.Clip(Printable(strings.Join(a, " ")), 50)+"`")
	}
	return "running now: " + strings.Join(names, ", ")
}
