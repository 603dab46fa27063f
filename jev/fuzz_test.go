package jev

import (
	"context"
	"strings"
	"testing"
	"time"
)

// Command lines and output are untrusted: nothing in them may crash the
// judge, and secrets must not survive redaction twice over.
func FuzzJudgeCommandLine(f *testing.F) {
	for _, seed := range []string{
		"npm run dev", "timeout 5m x", "for i in $(seq 1 150); do x; sleep 3; done",
		"cat <<EOF\nbody\nEOF", "bash -c 'sudo -u x env A=1 timeout 3 tail -f y'",
		"while true; do :; done", "git -c core.pager=cat log", "docker compose -f x up -d",
		"for ((i=0;i<10;i+=2)); do sleep 1; done", "case $x in a) y;; esac", "f() { g; }; f",
		"kubectl logs -f", "python -m", "uv pip", "npm run", "sleep", "timeout", "env", "sudo -u",
	} {
		f.Add(seed, "password=hunter2 Continue? ")
	}
	f.Fuzz(func(t *testing.T, cmd, output string) {
		DeclaredBound(cmd)
		ExpectFromCommand(cmd)
		st := State{Command: cmd, Elapsed: time.Minute, SinceOutput: time.Minute, SampleComplete: true,
			ReadingTTY: len(output)%2 == 0, LastLine: output, Tail: strings.Split(output, "\n")}
		if _, err := NewLocal().Ask(context.Background(), st, Questions()); err != nil {
			t.Fatal(err)
		}
		r := Redact(output)
		if Redact(r) != r {
			t.Fatalf("Redact not idempotent on %q", output)
		}
	})
}
