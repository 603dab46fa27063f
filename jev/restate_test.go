package jev

import "testing"

// Output is progress only when it says something new: times, elapsed
// counters and spinner frames aside.
func TestRestating(t *testing.T) {
	for _, c := range []struct {
		name string
		tail []string
		n    int
		want bool
	}{
		{"a heartbeat stamped with the time", []string{
			"Thu Dec  3 10:16:52 2026 waiting for the lock on /var/lib/app",
			"Thu Dec  3 10:16:54 2026 waiting for the lock on /var/lib/app"}, 1, true},
		{"an elapsed counter", []string{
			"still waiting for a build agent (elapsed 2s)", "still waiting for a build agent (elapsed 4s)",
			"still waiting for a build agent (elapsed 6s)"}, 2, true},
		{"ISO times and a percent that advances", []string{
			"[2026-12-03T10:15:20.338Z] upload 10%", "[2026-12-03T10:15:21.738Z] upload 20%"}, 1, false},
		{"an items counter that advances", []string{"downloaded 1 of 7 files", "downloaded 2 of 7 files"}, 1, false},
		{"timestamped lines naming new things", []string{
			"10:15:40 migrated table users", "10:15:42 migrated table orders"}, 1, false},
		{"one line is no repetition", []string{"waiting for the lock (elapsed 2s)"}, 1, false},
		{"a ping: the sequence advances, the time per reply is a duration", []string{
			"64 bytes from 127.0.0.1: icmp_seq=1 ttl=64 time=0.05 ms", "64 bytes from 127.0.0.1: icmp_seq=2 ttl=64 time=0.04 ms"}, 1, false},
	} {
		if _, got := restating(c.tail, c.n); got != c.want {
			t.Errorf("%s: restating = %v, want %v (shapes %q)", c.name, got, c.want, RestateShape(c.tail[len(c.tail)-1]))
		}
	}
	if RestateShape("| connecting to registry") != RestateShape("/ connecting to registry") {
		t.Error("spinner frames make two lines differ")
	}
}
