package jev

import (
	"testing"
	"time"
)

func TestProgramBound(t *testing.T) {
	const s = time.Second
	cases := []struct {
		argv []string
		want time.Duration
		ok   bool
	}{
		{[]string{"sleep", "14"}, 14 * s, true},
		{[]string{"/usr/bin/sleep", "1m", "30"}, 90 * s, true},
		{[]string{"sleep", "infinity"}, 0, false},
		{[]string{"timeout", "14", "python3", "-c", "x"}, 14 * s, true},
		{[]string{"env", "A=1", "timeout", "5", "sleep", "60"}, 5 * s, true},
		{[]string{"flock", "-w", "45", "lk", "echo", "hi"}, 45 * s, true},
		{[]string{"flock", "--wait=12", "lk", "true"}, 12 * s, true},
		{[]string{"flock", "lk", "true"}, 0, false},
		{[]string{"ping", "-c", "5", "-i", "2", "host"}, 20 * s, true},
		{[]string{"ping", "-c", "3", "-W", "1", "host"}, 4 * s, true},
		{[]string{"ping", "-w", "8", "host"}, 8 * s, true},
		{[]string{"ping", "host"}, 0, false},
		{[]string{"curl", "-sS", "-m", "14", "http://x/"}, 14 * s, true},
		{[]string{"curl", "--max-time", "20", "http://x/"}, 20 * s, true},
		{[]string{"curl", "--max-time=7", "http://x/"}, 7 * s, true},
		{[]string{"curl", "http://x/"}, 0, false},
		{[]string{"wget", "-T", "14", "-t", "1", "http://x/"}, 14 * s, true},
		{[]string{"wget", "-T", "10", "http://x/"}, 200 * s, true},
		{[]string{"wget", "-T", "10", "-t", "0", "http://x/"}, 0, false},
		{[]string{"nc", "-w", "5", "host", "80"}, 5 * s, true},
		{[]string{"nc", "host", "80"}, 0, false},
		{[]string{"ssh", "-o", "ConnectTimeout=12", "host", "true"}, 12 * s, true},
		{[]string{"ssh", "host", "sleep 15; ls"}, 15 * s, true},
		{[]string{"ssh", "-p", "22", "host", "sleep", "15"}, 15 * s, true},
		{[]string{"ssh", "host"}, 0, false},
		{[]string{"docker", "exec", "c", "sleep", "10"}, 10 * s, true},
		{[]string{"kubectl", "exec", "-it", "pod", "--", "sleep", "10"}, 10 * s, true},
		{[]string{"sh", "-c", "sleep 14 && echo remote done"}, 14 * s, true},
		{[]string{"bash", "-c", "sleep 3; sleep 4"}, 7 * s, true},
		{[]string{"bash", "-c", "make all"}, 0, false},
		{[]string{"python3", "-c", "import time; time.sleep(3)"}, 0, false},
		{nil, 0, false},
	}
	for _, tc := range cases {
		got, ok := ProgramBound(tc.argv)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ProgramBound(%q) = %v, %v; want %v, %v", tc.argv, got, ok, tc.want, tc.ok)
		}
	}
}
