//go:build linux

package faults

import (
	"strings"
	"testing"
	"time"
)

// The CLI edges of issue 14, each a user's first impression.
func TestCLIEdges(t *testing.T) {
	w := newWorld(t)
	check := func(what string, r result, wantCode bool, want string) {
		t.Helper()
		if (r.code == 0) != wantCode || !strings.Contains(r.stdout+r.stderr, want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want success=%v and %q", what, r.code, r.stdout, r.stderr, wantCode, want)
		}
	}
	check("--version", w.run("--version"), true, "hangdog version")
	check("bg frobnicate", w.run("bg", "frobnicate"), false, `unknown command "frobnicate"`)
	check("config frobnicate", w.run("config", "frobnicate"), false, `unknown command "frobnicate"`)
	r := w.run("config", "set", "tasks.keepDays", "-1")
	check("config set tasks.keepDays -1", r, false, "out of range")
	if strings.Contains(r.stderr, "shorthand") {
		t.Errorf("-1 was taken for a flag: %s", r.stderr)
	}
	check("config set --project watchdog.confidence 0.6", w.run("config", "set", "--project", "watchdog.confidence", "0.6"), true, "0.6")
	id := strings.TrimSpace(w.run("bg", "run", "--", "echo", "x").stdout)
	check("bg logs --tail -3", w.run("bg", "logs", id, "--tail", "-3"), false, "--tail -3")
	check("bg detach nosuchid", w.run("bg", "detach", "nosuchid"), false, `unknown task "nosuchid"`)
	if r := w.run("config", "path"); r.code != 0 || strings.Count(r.stdout, "\n") != 1 || !strings.HasSuffix(strings.TrimSpace(r.stdout), "/hangdog/config.yaml") || strings.Contains(r.stdout, "user") && !strings.HasPrefix(r.stdout, "/") {
		t.Errorf("config path printed %q, want the path alone", r.stdout)
	}
	check("config path --all", w.run("config", "path", "--all"), true, "project")
	w.extra = []string{"HANGDOG_OPENAI_BASE_URL=http://127.0.0.1:9/v1", "HANGDOG_OPENAI_MODEL="}
	check("OpenAI URL without a model", w.run("run", "--", "true"), true, "HANGDOG_OPENAI_BASE_URL")
	w.extra = nil
}

// bg send of a line longer than a line-mode terminal holds is refused with
// a message, not cut to 4,096 bytes with exit 0; as many short lines as it
// takes all arrive.
func TestSendLongInput(t *testing.T) {
	w := newWorld(t)
	id := strings.TrimSpace(w.run("bg", "run", "--", `while IFS= read -r l; do echo "len=${#l}"; done`).stdout)
	defer w.run("bg", "kill", id)
	long := strings.Repeat("x", 5000) + `\n`
	var r result
	eventually(t, "the task to be reachable", 10*time.Second, func() bool {
		r = w.run("bg", "send", id, long)
		return !strings.Contains(r.stderr, "not reachable")
	})
	if r.code == 0 || !strings.Contains(r.stderr, "line mode") {
		t.Fatalf("a 5000-byte line: exit %d, stderr %q; want a refusal that says why", r.code, r.stderr)
	}
	lines := strings.Repeat(strings.Repeat("y", 99)+`\n`, 60) // 6,000 bytes
	if r := w.run("bg", "send", id, lines); r.code != 0 {
		t.Fatalf("60 short lines: exit %d: %s", r.code, r.stderr)
	}
	eventually(t, "all 60 lines to arrive", 10*time.Second, func() bool {
		return strings.Count(w.run("bg", "logs", id).stdout, "len=99") == 60
	})
}
