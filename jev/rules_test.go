package jev

import (
	"strings"
	"testing"

	"github.com/hangdog/hangdog/jev/internal/shell"
)

// TestProgramRules lists the command table and checks it rule by rule: each
// program has one rule, and every rule's examples get the category it says
// (at a terminal, as an agent's command runs under hangdog).
func TestProgramRules(t *testing.T) {
	owner := map[string]string{}
	for _, r := range programRules() {
		names := strings.Fields(r.programs)
		if len(names) == 0 {
			t.Errorf("a rule with no program: %+v", r)
			continue
		}
		for _, n := range names {
			if other, dup := owner[n]; dup {
				t.Errorf("%s has two rules: %q and %q", n, other, r.programs)
			}
			owner[n] = r.programs
		}
		if len(r.examples) == 0 && r.bound == nil {
			t.Errorf("rule %q has no example", r.programs)
		}
		if r.family != nil && len(r.cases) > 0 {
			t.Errorf("rule %q has both a family classifier and cases; the cases would never apply", r.programs)
		}
		for _, ex := range r.examples {
			l := shell.Parse(ex.cmd)
			if len(l.Pipelines) == 0 || l.Pipelines[0].Commands[0].Simple == nil {
				t.Errorf("%q: example %q does not parse as one command", r.programs, ex.cmd)
				continue
			}
			inv := unwrap(l.Pipelines[0].Commands[0].Simple, true, true)
			if !inWords(r.programs, inv.name()) {
				t.Errorf("rule %q: example %q runs %s, not one of its programs", r.programs, ex.cmd, inv.name())
				continue
			}
			if got := classify(inv); got.cat != ex.cat {
				t.Errorf("rule %q: %q is category %d (%s), want %d", r.programs, ex.cmd, got.cat, got.does, ex.cat)
			}
		}
	}
}

// Every program a rule names is found by the index, and nothing else is.
func TestRuleIndex(t *testing.T) {
	for _, r := range programRules() {
		for _, n := range strings.Fields(r.programs) {
			if got, ok := ruleIndex()[n]; !ok || got.programs != r.programs {
				t.Errorf("%s not indexed to its rule", n)
			}
		}
	}
	if _, ok := classifyByName(invocation{argv: []string{"no-such-tool"}}, "no-such-tool", nil); ok {
		t.Error("a program with no rule was classified")
	}
}
