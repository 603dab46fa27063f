package main

import (
	"strings"
	"testing"
)

// wake --from refuses what it cannot use, before it starts a worker:
// another scheme, credentials in the URL (bg ls would show them; the
// error shows them redacted), a consumer name JetStream refuses, and the
// fleet's filters without --from.
func TestWakeFromRefusals(t *testing.T) {
	e := newEnv(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--from", "http://127.0.0.1:1"}, "not nats://"},
		{[]string{"--from", "nats://s3cret@127.0.0.1:1"}, "--from nats://***@127.0.0.1:1 carries credentials"},
		{[]string{"--from", "nats://127.0.0.1:1", "--consumer", "a.b"}, "names a JetStream durable consumer"},
		{[]string{"--kind", "exited"}, "need --from"},
	} {
		args := append([]string{"wake", "--consumer", "agent", "--run", "true"}, c.args...)
		r := e.run(args...)
		if r.code == 0 || !strings.Contains(r.stderr, c.want) || strings.Contains(r.stderr, "s3cret") {
			t.Errorf("hangdog %s: exit %d, stderr %q; want a refusal saying %q", strings.Join(args, " "), r.code, r.stderr, c.want)
		}
		if ls := e.run("bg", "ls").stdout; strings.Contains(ls, "wake") {
			t.Fatalf("a refused wake left a worker:\n%s", ls)
		}
	}
}
