package jev

import (
	"strings"
	"testing"
	"time"
)

func TestPartsUnwrapsWrappers(t *testing.T) {
	tests := []struct {
		cmd     string
		argv    string // of the first part
		timeout time.Duration
		assign  string // an assignment the part must carry
	}{
		{"sudo -u deploy -E make install", "make install", 0, ""},
		{"sudo -- ls /root", "ls /root", 0, ""},
		{"doas -u www tail -f log", "tail -f log", 0, ""},
		{"env -i PATH=/bin FOO=1 ./run.sh", "./run.sh", 0, "FOO=1"},
		{"FOO=bar BAZ='q x' npm start", "npm start", 0, "BAZ=q x"},
		{"cross-env NODE_ENV=test jest", "jest", 0, "NODE_ENV=test"},
		{"timeout -k 5 30s curl x", "curl x", 35 * time.Second, ""},
		{"timeout 10 timeout 60 make", "make", 10 * time.Second, ""},
		{"nice -n 10 ionice -c3 stdbuf -oL nohup ./job", "./job", 0, ""},
		{"time -p make", "make", 0, ""},
		{"command make", "make", 0, ""},
		{"exec -a name ./server", "./server", 0, ""},
		{"npx -y create-vite@latest app", "create-vite@latest app", 0, ""},
		{"pnpm exec vitest run", "vitest run", 0, ""},
		{"pnpm dlx prisma migrate dev", "prisma migrate dev", 0, ""},
		{"uv run --with rich python x.py", "python x.py", 0, ""},
		{"poetry run pytest -q", "pytest -q", 0, ""},
		{"bundle exec rails s", "rails s", 0, ""},
		{"timeout 60 bash -lc 'cd app && npm test'", "cd app", 60 * time.Second, ""},
		{"flock /tmp/lock -c 'make deploy'", "make deploy", 0, ""},
		{"taskset -c 0-3 ./bench", "./bench", 0, ""},
		{"xvfb-run -a npm test", "npm test", 0, ""},
		{"sudo", "sudo", 0, ""},
		{"command -v node", "command -v node", 0, ""},
	}
	for _, tt := range tests {
		ps := parts(tt.cmd)
		if len(ps) == 0 {
			t.Errorf("parts(%q) is empty", tt.cmd)
			continue
		}
		inv := ps[0].inv
		if got := strings.Join(inv.argv, " "); got != tt.argv {
			t.Errorf("parts(%q) argv = %q, want %q", tt.cmd, got, tt.argv)
		}
		if inv.timeout != tt.timeout {
			t.Errorf("parts(%q) timeout = %v, want %v", tt.cmd, inv.timeout, tt.timeout)
		}
		if tt.assign != "" {
			name, want, _ := strings.Cut(tt.assign, "=")
			if v, ok := inv.assigned(name); !ok || v != want {
				t.Errorf("parts(%q) %s = %q, want %q", tt.cmd, name, v, want)
			}
		}
	}
}

// Where a command's input and output go decides whether it can read the
// terminal or page.
func TestPartsTrackTerminal(t *testing.T) {
	tests := []struct {
		cmd           string
		index         int
		stdin, stdout bool
		background    bool
	}{
		{"cat", 0, true, true, false},
		{"cat | wc -l", 0, true, false, false},
		{"cat | wc -l", 1, false, true, false},
		{"sort < in > out", 0, false, false, false},
		{"git log 2>&1", 0, true, true, false},
		{"git log >&2", 0, true, true, false},
		{"git log &> out", 0, true, false, false},
		{"while read l; do echo $l; done < file", 0, false, true, false},
		{"cat &", 0, false, true, true},
		{"bash -c 'cat' | tee x", 0, true, false, false},
		{"{ cat; } > out", 0, true, false, false},
	}
	for _, tt := range tests {
		ps := parts(tt.cmd)
		if tt.index >= len(ps) {
			t.Errorf("parts(%q) has %d parts", tt.cmd, len(ps))
			continue
		}
		p := ps[tt.index]
		if p.inv.stdinTTY != tt.stdin || p.inv.stdoutTTY != tt.stdout || p.background != tt.background {
			t.Errorf("parts(%q)[%d] stdin=%v stdout=%v bg=%v; want %v %v %v", tt.cmd, tt.index,
				p.inv.stdinTTY, p.inv.stdoutTTY, p.background, tt.stdin, tt.stdout, tt.background)
		}
	}
}
