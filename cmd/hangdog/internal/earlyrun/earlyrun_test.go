package earlyrun

import "testing"

func TestStartsTask(t *testing.T) {
	cases := []struct {
		args []string
		want bool
	}{
		{[]string{"run", "--", "true"}, true},
		{[]string{"run", "make test"}, true},
		{[]string{"run", "--json", "--cwd", "/tmp", "--", "ls", "-h"}, true}, // -h belongs to ls
		{[]string{"run", "echo --help"}, true},                               // one shell string
		{[]string{"bg", "run", "--", "sleep", "9"}, true},
		{[]string{"run"}, true}, // refused later, with the usual message
		{[]string{"run", "--help"}, false},
		{[]string{"run", "-h", "--", "true"}, false},
		{[]string{"bg", "run", "--help=true"}, false},
		{[]string{"bg", "ls"}, false},
		{[]string{"bg"}, false},
		{[]string{"events", "run"}, false},
		{[]string{"__supervise"}, false},
		{nil, false},
	}
	for _, c := range cases {
		if got := startsTask(c.args); got != c.want {
			t.Errorf("startsTask(%q) = %v, want %v", c.args, got, c.want)
		}
	}
}
