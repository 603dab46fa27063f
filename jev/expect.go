package jev

import (
	"fmt"
	"strings"
	"time"

	"github.com/hangdog/hangdog/internal/termtext"
	"github.com/hangdog/hangdog/jev/internal/shell"
)

// expectRank orders the Expect choices from shortest to never.
var expectRank = [...]string{ExpectSeconds, ExpectMinutes, ExpectLong, ExpectNever}

const (
	rankSeconds = iota
	rankMinutes
	rankLong
	rankNever
)

// rankOfDuration is the Expect choice a known duration falls in.
func rankOfDuration(d time.Duration) int {
	switch {
	case d <= time.Minute:
		return rankSeconds
	case d <= 10*time.Minute:
		return rankMinutes
	}
	return rankLong
}

func (k knowledge) rank() int {
	switch k.cat {
	case catQuick, catNetwork:
		return rankSeconds
	case catSleep:
		return rankOfDuration(k.sleep)
	case catLong:
		return rankLong
	case catUnknown, catPackage, catTest, catBuild:
		return rankMinutes
	}
	return rankNever
}

// confidence is how far the table's word on an invocation can be trusted.
func (k knowledge) confidence() float64 {
	switch {
	case k.cat == catUnknown:
		return 0.4
	case k.guess:
		return 0.65
	case k.cat.never():
		return 0.9
	}
	return 0.8
}

// judgedPart is one invocation with what the table says about it.
type judgedPart struct {
	part
	know knowledge
	rank int // after any timeout
}

func (p judgedPart) describe() string {
	does := p.know.does
	if does == "" {
		does = p.know.cat.defaultDoes()
	}
	s := fmt.Sprintf("`%s` %s", p.inv.display(), does)
	if p.inv.timeout > 0 {
		s += fmt.Sprintf(", and `timeout` ends it within %s", fmtDuration(p.inv.timeout))
	}
	return s
}

// commandFacts is everything the command line alone says.
type commandFacts struct {
	parts []judgedPart

	expect     string
	expectConf float64
	expectWhy  string

	bound   time.Duration // DeclaredBound
	bounded bool

	loops loopFacts
}

// service returns the first part that runs by design until stopped.
func (f *commandFacts) service() (judgedPart, bool) {
	for _, p := range f.parts {
		if p.know.cat.persistent() && p.rank == rankNever {
			return p, true
		}
	}
	return judgedPart{}, false
}

// personWaiter returns the first foreground part that waits for a person
// (a pager, an editor, a REPL, a program reading the terminal).
func (f *commandFacts) personWaiter() (judgedPart, bool) {
	for _, p := range f.parts {
		if p.know.cat.waitsForPerson() && !p.background {
			return p, true
		}
	}
	return judgedPart{}, false
}

// prompts lists what may stop to ask a question (`apt-get install` without -y).
func (f *commandFacts) prompts() []string {
	var out []string
	for _, p := range f.parts {
		if p.inv.sudoPrompt {
			out = append(out, fmt.Sprintf("`sudo %s` may ask for a password (no -n)", p.inv.display()))
		}
		if p.know.prompt != "" {
			out = append(out, fmt.Sprintf("`%s` %s", p.inv.display(), p.know.prompt))
		}
	}
	return out
}

// ExpectFromCommand judges from the command line alone how long it should
// run — seconds, minutes, long or never — and says why in words. The longest
// part decides; a `timeout` caps it; declared sleeps set a floor; a
// `while true` loop with no break never ends.
func ExpectFromCommand(cmd string) (choice string, evidence string) {
	f := analyzeCommand(cmd)
	return f.expect, f.expectWhy
}

func analyzeCommand(cmd string) *commandFacts {
	l := shell.Parse(cmd)
	f := &commandFacts{}
	w := walker{visit: func(p part) {
		k := classify(p.inv)
		r := k.rank()
		if p.inv.timeout > 0 {
			r = min(r, rankOfDuration(p.inv.timeout))
		}
		f.parts = append(f.parts, judgedPart{part: p, know: k, rank: r})
	}}
	w.list(l, place{stdinTTY: true, stdoutTTY: true})

	b := boundOfList(l, 0)
	f.bound, f.bounded = b.declared()
	f.loops = findLoops(l, 0)
	f.judgeExpect(b)
	return f
}

func (f *commandFacts) judgeExpect(b bound) {
	if len(f.parts) == 0 {
		f.expect, f.expectConf, f.expectWhy = ExpectSeconds, 0.5, "the command line runs nothing hangdog can see"
		return
	}
	best := -1
	unknown := false
	for i, p := range f.parts {
		if p.know.cat == catUnknown {
			unknown = true
		}
		// The longest part decides; among equals, the better known one.
		if best < 0 || p.rank > f.parts[best].rank ||
			p.rank == f.parts[best].rank && p.know.confidence() > f.parts[best].know.confidence() {
			best = i
		}
	}
	decider := f.parts[best]
	rank, conf, why := decider.rank, decider.know.confidence(), decider.describe()
	switch {
	case f.loops.forever && rank < rankNever:
		rank, conf, why = rankNever, 0.85, "a `while true` loop with no break runs until stopped"
	case f.loops.polls != "" && rank < rankMinutes:
		rank, conf, why = rankMinutes, 0.6, fmt.Sprintf("it polls until `%s` succeeds", termtext.Clip(f.loops.polls, 40))
	}
	// Time spent sleeping is certain to pass: it is a floor.
	if r := rankOfDuration(b.slept); b.slept > 0 && rank < rankNever && (r > rank || r == rank && decider.know.cat == catUnknown) {
		rank, conf, why = r, 0.75, fmt.Sprintf("it sleeps %s in all", fmtDuration(b.slept))
		decider.know.cat = catSleep
	}
	if unknown && decider.know.cat != catUnknown && rank < rankNever {
		conf = min(conf, 0.5)
		why += "; other parts are unknown and may take longer"
	}
	f.expect, f.expectConf, f.expectWhy = expectRank[rank], conf, why
}

// loopFacts is what the loops in a command line say about its duration.
type loopFacts struct {
	forever bool   // a while/until loop with a constant condition and no break, or for ((;;))
	polls   string // the condition of a loop that waits for something to succeed
}

func findLoops(l shell.List, depth int) loopFacts {
	var lf loopFacts
	if depth > maxUnwrap {
		return lf
	}
	for _, pl := range l.Pipelines {
		for _, c := range pl.Commands {
			var inner loopFacts
			switch {
			case c.Loop != nil:
				if constantLoop(c.Loop) && !escapes(c.Loop.Body, 0) {
					return loopFacts{forever: true}
				}
				if c.Loop.Kind != "for" && lf.polls == "" {
					lf.polls = conditionText(c.Loop.Cond)
				}
				inner = findLoops(c.Loop.Body, depth+1)
			case c.Group != nil:
				inner = findLoops(*c.Group, depth+1)
			}
			if inner.forever {
				return inner
			}
			if lf.polls == "" {
				lf.polls = inner.polls
			}
		}
	}
	return lf
}

func conditionText(l shell.List) string {
	var words []string
	for _, pl := range l.Pipelines {
		for _, c := range pl.Commands {
			if c.Simple != nil {
				words = append(words, c.Simple.Args...)
			}
		}
	}
	if len(words) == 0 {
		return "its condition"
	}
	return strings.Join(words, " ")
}

func constantLoop(lp *shell.Loop) bool {
	if lp.Kind == "for" {
		return lp.Arith != "" && strings.Trim(lp.Arith, " ;") == ""
	}
	if len(lp.Cond.Pipelines) != 1 || len(lp.Cond.Pipelines[0].Commands) != 1 {
		return false
	}
	s := lp.Cond.Pipelines[0].Commands[0].Simple
	if s == nil || len(s.Args) == 0 {
		return false
	}
	cond := strings.Join(s.Args, " ")
	if lp.Kind == "while" {
		return cond == "true" || cond == ":" || cond == "[ 1 ]" || cond == "((1))"
	}
	return cond == "false"
}

// escapes reports whether a loop body can leave the loop on its own.
func escapes(l shell.List, depth int) bool {
	if depth > maxUnwrap {
		return true
	}
	for _, pl := range l.Pipelines {
		for _, c := range pl.Commands {
			switch {
			case c.Simple != nil && len(c.Simple.Args) > 0 && inWords("break exit return", c.Simple.Args[0]):
				return true
			case c.Group != nil && escapes(*c.Group, depth+1):
				return true
			case c.Loop != nil && escapes(c.Loop.Body, depth+1):
				return true
			}
		}
	}
	return false
}

// fmtDuration writes a duration the short way a person would: 90s, 7m30s, 2h.
func fmtDuration(d time.Duration) string {
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	d = d.Round(time.Second)
	if d < 2*time.Minute {
		return fmt.Sprintf("%ds", int(d.Seconds()))
	}
	s := d.String() // 7m30s, 10m0s, 2h0m0s
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}
