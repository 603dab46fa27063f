package jev

import (
	"strings"
	"sync"
	"time"
)

// The command knowledge, as data: one rule per program (or family of
// aliases). A rule's cases are tried in order and the first whose test holds
// says what the invocation is; otherwise says what it is when none holds (or
// nothing, when fallThrough: the simple table and the stdin readers decide).
// A program whose rules are a language of their own (git, npm, docker…)
// names its family classifier instead. bound reads the time limit its
// arguments declare (ProgramBound). TestProgramRules lists the table and
// checks every rule against its examples.
type programRule struct {
	programs    string // space-separated names
	cases       []ruleCase
	otherwise   knowledge
	fallThrough bool // no knowledge when no case holds
	family      func(inv invocation, name string, args []string) (knowledge, bool)
	bound       func(args []string) (time.Duration, bool)
	examples    []ruleExample
}

// ruleCase: when test holds, the invocation is know (or what build says,
// for knowledge that depends on the invocation itself).
type ruleCase struct {
	test  argTest
	know  knowledge
	build func(inv invocation, args []string) knowledge
}

// argTest is one argument matcher; nil always holds.
type argTest func(inv invocation, args []string) bool

// ruleExample is a command line and the category its rule must give it.
type ruleExample struct {
	cmd string
	cat category
}

// Argument matchers.

func short(letters string) argTest {
	return func(_ invocation, args []string) bool { return hasShort(args, letters) }
}

func flag(flags string) argTest {
	return func(_ invocation, args []string) bool { return hasFlag(args, flags) }
}

// sub: the first positional argument (options in withArg take a value) is
// one of words.
func sub(withArg, words string) argTest {
	return func(_ invocation, args []string) bool {
		p := firstPositional(args, withArg)
		return p != "" && inWords(words, p)
	}
}

// noSub: there is no positional argument.
func noSub(withArg string) argTest {
	return func(_ invocation, args []string) bool { return firstPositional(args, withArg) == "" }
}

func stdinTTY() argTest { return func(inv invocation, _ []string) bool { return inv.stdinTTY } }

func noArgs() argTest { return func(_ invocation, args []string) bool { return len(args) == 0 } }

func either(ts ...argTest) argTest {
	return func(inv invocation, args []string) bool {
		for _, t := range ts {
			if t(inv, args) {
				return true
			}
		}
		return false
	}
}

func both(ts ...argTest) argTest {
	return func(inv invocation, args []string) bool {
		for _, t := range ts {
			if !t(inv, args) {
				return false
			}
		}
		return true
	}
}

func not(t argTest) argTest { return func(inv invocation, args []string) bool { return !t(inv, args) } }

func when(t argTest, k knowledge) ruleCase { return ruleCase{test: t, know: k} }

func whenBuild(t argTest, b func(invocation, []string) knowledge) ruleCase {
	return ruleCase{test: t, build: b}
}

// pagerOff: knowledge of a command that pages unless off says paging is off.
func pagerOff(off argTest, does string) func(invocation, []string) knowledge {
	return func(inv invocation, args []string) knowledge { return pager(inv, off != nil && off(inv, args), does) }
}

type familyFunc = func(invocation, string, []string) (knowledge, bool)

func family(f func(inv invocation, args []string) knowledge) familyFunc {
	return func(inv invocation, _ string, args []string) (knowledge, bool) { return f(inv, args), true }
}

func familyNamed(f func(inv invocation, name string, args []string) knowledge) familyFunc {
	return func(inv invocation, name string, args []string) (knowledge, bool) { return f(inv, name, args), true }
}

func familyArgs(f func(args []string) knowledge) familyFunc {
	return func(_ invocation, _ string, args []string) (knowledge, bool) { return f(args), true }
}

// classifyByName applies the program's rule. ok is false for programs with
// no rule, or whose rule knows nothing of this invocation.
func classifyByName(inv invocation, name string, args []string) (knowledge, bool) {
	r, ok := ruleIndex()[name]
	if !ok {
		return knowledge{}, false
	}
	if r.family != nil {
		return r.family(inv, name, args)
	}
	for _, c := range r.cases {
		if c.test == nil || c.test(inv, args) {
			if c.build != nil {
				return c.build(inv, args), true
			}
			return c.know, true
		}
	}
	if r.fallThrough {
		return knowledge{}, false
	}
	return r.otherwise, true
}

// ruleIndex maps every program name to its rule; built at the first use, so
// a command that is never judged costs nothing.
func ruleIndex() map[string]*programRule {
	ruleIndexOnce.Do(func() {
		rules := programRules()
		ruleIndexMap = make(map[string]*programRule, 2*len(rules))
		for i := range rules {
			for _, name := range strings.Fields(rules[i].programs) {
				ruleIndexMap[name] = &rules[i]
			}
		}
	})
	return ruleIndexMap
}

var (
	ruleIndexOnce sync.Once
	ruleIndexMap  map[string]*programRule
)

// ruleBound is the bound a program's arguments declare, by its rule.
func ruleBound(name string, args []string) (time.Duration, bool) {
	r, ok := ruleIndex()[name]
	if !ok || r.bound == nil {
		return 0, false
	}
	return r.bound(args)
}
