package taskctl

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/hangdog/hangdog/bgtasks"
)

func TestResolve(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "config.yaml") // absent: defaults
	for _, c := range []struct {
		name    string
		req     Request
		wantErr string
		check   func(t *testing.T, s Spec)
	}{
		{name: "nothing to run", req: Request{Command: "  "}, wantErr: "nothing to run"},
		{name: "no argv either", req: Request{}, wantErr: "nothing to run"},
		{name: "a program not on PATH", req: Request{Argv: []string{"no-such-program-hd", "x"}}, wantErr: "command not found"},
		{name: "a directory that is not there", req: Request{Command: "true", Cwd: filepath.Join(dir, "gone")}, wantErr: "no such directory"},
		{name: "a bad setting", req: Request{Command: "true", Cwd: dir, Sets: map[string]string{"watchdog.action": "explode"}}, wantErr: "watchdog.action"},
		{name: "a shell string", req: Request{Command: "make && make test", Cwd: dir}, check: func(t *testing.T, s Spec) {
			if !s.Shell || s.Command != "make && make test" || s.Argv != nil {
				t.Errorf("spec %+v", s)
			}
			if s.Mode != bgtasks.Foreground || s.Env == nil || s.Cwd != dir {
				t.Errorf("defaults: mode %q, env %d, cwd %q", s.Mode, len(s.Env), s.Cwd)
			}
		}},
		{name: "one argument is a shell string", req: Request{Argv: []string{"echo a | wc -c"}, Cwd: dir}, check: func(t *testing.T, s Spec) {
			if !s.Shell || s.Command != "echo a | wc -c" {
				t.Errorf("spec %+v", s)
			}
		}},
		{name: "a program and its arguments", req: Request{Argv: []string{"echo", "it's", "a b"}, Cwd: dir, Mode: bgtasks.Background}, check: func(t *testing.T, s Spec) {
			if s.Shell || s.Command != `echo 'it'\''s' 'a b'` || len(s.Argv) != 3 || s.Mode != bgtasks.Background {
				t.Errorf("spec %+v", s)
			}
		}},
		{name: "overrides and the caller's terminal", req: Request{Command: "true", Cwd: dir, Sets: map[string]string{"watchdog.action": "kill"}, Interactive: true, Rows: 50, Cols: 132, Env: []string{"A=1"}}, check: func(t *testing.T, s Spec) {
			if s.Watchdog.Action != "kill" || !s.Interactive || s.Rows != 50 || s.Cols != 132 || len(s.Env) != 1 {
				t.Errorf("spec %+v", s)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.req.UserFile = user
			s, err := Resolve(c.req)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err = %v, want one about %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c.check(t, s)
		})
	}
}
