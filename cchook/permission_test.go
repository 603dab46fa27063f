package cchook

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestSplitCommandAsClaudeCodeDoes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string // nil: not splittable (no rule may match it)
	}{
		{"a && b || c; d | e & f\ng", []string{"a", "b", "c", "d", "e", "f", "g"}},
		{`echo "a && b" 'c; d'`, []string{`echo "a && b" 'c; d'`}},
		{`echo a\;b`, []string{`echo a\;b`}},
		{"ls 2>&1 | wc -l", []string{"ls 2>&1", "wc -l"}},
		{"ls &> out", []string{"ls &> out"}},
		{"echo $(touch x)", nil},
		{"echo `id`", nil},
		{`echo "$(id)"`, nil},
		{"cat <<EOF\nx\nEOF", nil},
		{"diff <(a) <(b)", nil},
		{`echo "unclosed`, nil},
	} {
		got, ok := splitCommand(tc.in)
		if (tc.want == nil) == ok || ok && !slices.Equal(got, tc.want) {
			t.Errorf("splitCommand(%q) = %q, %v; want %q", tc.in, got, ok, tc.want)
		}
	}
}

func TestRulesMatchAsClaudeCodeDoes(t *testing.T) {
	for _, tc := range []struct {
		rule, cmd string
		want      bool
	}{
		{"", "anything", true},
		{"*", "anything", true},
		{"git:*", "git", true},
		{"git:*", "git push", true},
		{"git:*", "gitk", false},
		{"npm run *", "npm run", true},
		{"npm run *", "npm run build", true},
		{"npm run *", "npm runner", false},
		{"make test", "make test", true},
		{"make test", "make test-all", false},
		{"docker * ps", "docker compose ps", true},
	} {
		if got := ruleMatches(tc.rule, tc.cmd); got != tc.want {
			t.Errorf("ruleMatches(%q, %q) = %v, want %v", tc.rule, tc.cmd, got, tc.want)
		}
	}
	if !matches([]string{"echo:*"}, "timeout 5 nice -n 3 echo hi") {
		t.Error("the timeout and nice wrappers were not looked through")
	}
}

func TestPermissionDecidesDenyAskAllowInThatOrder(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "sub"), 0o700)
	env := func(string) string { return "" }
	r := rules{allow: []string{"echo:*", "git push:*"}, ask: []string{"git push:*"}, deny: []string{"rm:*"}}
	for _, tc := range []struct {
		mode, cmd string
		want      decision
	}{
		{"default", "echo hi", decideAllow},
		{"default", "cd sub && echo hi", decideAllow},
		{"default", "cd / && echo hi", decideNone},
		{"default", "echo hi && touch x", decideNone},
		{"default", "git push", decideAsk},
		{"default", "echo a; rm -f x", decideDeny},
		{"bypassPermissions", "touch x", decideAllow},
		{"bypassPermissions", "rm x", decideDeny},
		{"plan", "echo hi", decideNone},
		{"default", "echo $(id)", decideNone},
	} {
		if got := permission(tc.cmd, dir, dir, tc.mode, r, env); got != tc.want {
			t.Errorf("%s %q: %q, want %q", tc.mode, tc.cmd, got, tc.want)
		}
	}
}

func TestKeyIsAValidSessionAndConsumerName(t *testing.T) {
	for _, id := range []string{"", "4f1c2d3e-aaaa-bbbb-cccc-0123456789ab", "a/b c", string(make([]byte, 200))} {
		k := Key(id)
		if len(Owner(k)) > 64 || k == "" {
			t.Errorf("Key(%q) = %q: %q is no consumer name", id, k, Owner(k))
		}
		for _, c := range []byte(k) {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
				t.Errorf("Key(%q) = %q holds %q", id, k, c)
			}
		}
	}
}
