//go:build linux

package taskctl

import "testing"

// A spare supervisor's Go runtime read its GO… variables when it started;
// a task whose own differ must get a fresh one. The rest of the
// environment travels in the hand-over and never matters here.
func TestSameRuntimeEnvComparesOnlyTheGoRuntimesVariables(t *testing.T) {
	base := []string{"PATH=/bin", "GOGC=100", "HOME=/h"}
	for _, c := range []struct {
		env  []string
		want bool
	}{
		{[]string{"GOGC=100", "PATH=/usr/bin", "BASH_ENV=/tmp/x", "HOME=/h"}, true},
		{[]string{"PATH=/bin", "GOGC=off"}, false},
		{[]string{"PATH=/bin"}, false},
		{[]string{"PATH=/bin", "GOGC=100", "GOMAXPROCS=1"}, false},
		{[]string{"PATH=/bin", "GOGC=100", "GODEBUG="}, false},
	} {
		if got := sameRuntimeEnv(base, c.env); got != c.want {
			t.Errorf("sameRuntimeEnv(%q, %q) = %v, want %v", base, c.env, got, c.want)
		}
	}
}
