package watchdog

import (
	"strings"
	"testing"
	"time"

	"github.com/hangdog/hangdog/supervisor/sampler"
)

func withArgv(argv ...string) func(*sampler.Tree) {
	return func(t *sampler.Tree) { t.Procs[1].Argv = argv }
}

// Each kind of wait is named from who reads, the mode, and the prompt —
// the prompt on the line above when the last line is empty.
func TestInputKinds(t *testing.T) {
	cases := []struct {
		name, comm string
		mode       sampler.TTYMode
		argv       []string
		last       string
		tail       []string
		want       string
		describe   string // a part of the description
	}{
		{"editor by name, in raw mode", "vi", sampler.TTYRaw, []string{"vi", ".git/rebase-merge/git-rebase-todo"}, "", nil, InputEditor, "editor `vi`"},
		{"Debian's editor alternative (git's default editor there)", "editor", sampler.TTYRaw, []string{"editor", ".git/rebase-merge/git-rebase-todo"}, "", nil, InputEditor, "editor `editor`"},
		{"Debian's pager alternative (man's pager)", "pager", sampler.TTYRaw, []string{"pager"}, "", nil, InputPager, "pager `pager`"},
		{"a line editor", "ed", sampler.TTYLine, []string{"ed", "notes.txt"}, "", []string{"120"}, InputEditor, "editor `ed`"},
		{"man's pager", "less", sampler.TTYRaw, []string{"less"}, "", nil, InputPager, "pager `less`"},
		{"sqlite3's shell", "sqlite3", sampler.TTYRaw, []string{"sqlite3", "app.db"}, "sqlite> ", nil, InputREPL, "REPL"},
		{"bc with no prompt at all", "bc", sampler.TTYLine, []string{"bc", "-q"}, "", nil, InputREPL, "REPL"},
		{"python's debugger", "python3", sampler.TTYRaw, []string{"python3", "-m", "pdb", "app.py"}, "(Pdb) ", nil, InputREPL, "`(Pdb) `"},
		{"a bare interpreter", "node", sampler.TTYRaw, []string{"node"}, "> ", nil, InputREPL, "REPL"},
		{"a script's input() is a prompt, not a REPL", "python3", sampler.TTYLine, []string{"python3", "setup.py"}, "Project name: ", nil, InputPrompt, "last line `Project name: `"},
		{"bash select", "bash", sampler.TTYLine, []string{"bash", "-c", "select x in a b; do :; done"}, "#? ", []string{"1) staging", "2) production"}, InputMenu, "menu"},
		{"a numbered choice", "bash", sampler.TTYLine, nil, "Choose 1-3 [1]: ", []string{"1) minimal", "2) standard", "3) full"}, InputMenu, "menu"},
		{"numbered choices above a plain prompt", "bash", sampler.TTYLine, nil, "> ", []string{"1) minimal", "2) standard"}, InputMenu, "menu"},
		{"a form field with a default", "openssl", sampler.TTYLine, nil, "Country Name (2 letter code) [AU]:", nil, InputForm, "form field"},
		{"npm init's field", "node", sampler.TTYLine, []string{"node", "/usr/bin/npm", "init"}, "package name: (app) ", nil, InputForm, "form field"},
		{"a yes/no question is a prompt", "bash", sampler.TTYLine, nil, "Overwrite? [y/N] ", nil, InputPrompt, "last line"},
		{"ssh's host key question is a prompt", "ssh", sampler.TTYLine, nil, "Are you sure you want to continue connecting (yes/no/[fingerprint])? ", nil, InputPrompt, "last line"},
		{"a password", "openssl", sampler.TTYSecret, nil, "enter AES-256-CBC encryption password:", nil, InputSecret, "password prompt"},
		{"the prompt on the line above", "bash", sampler.TTYLine, nil, "", []string{"building...", "Enter the release tag to deploy:"}, InputPrompt, "on the line above"},
		{"output above is not a prompt", "cat", sampler.TTYLine, nil, "", []string{"copied 3 files"}, InputStdin, "no prompt shown"},
		{"a plain read of stdin", "python3", sampler.TTYLine, []string{"python3", "-c", "import sys; sys.stdin.read()"}, "", nil, InputStdin, "no prompt shown"},
		{"another full-screen program", "htop", sampler.TTYRaw, []string{"htop"}, "", nil, InputScreen, "full-screen"},
	}
	for _, tc := range cases {
		w := classifyInput(tree(reading(tc.mode, tc.comm), withArgv(tc.argv...)), tc.last, tc.tail)
		if w.kind != tc.want {
			t.Errorf("%s: kind %q, want %q", tc.name, w.kind, tc.want)
			continue
		}
		if d := w.describe(); !strings.Contains(d, tc.describe) {
			t.Errorf("%s: description %q lacks %q", tc.name, d, tc.describe)
		}
		if w.advice() == (inputWait{}).advice() && tc.want != InputStdin {
			t.Errorf("%s: kind %s has no advice of its own", tc.name, tc.want)
		}
	}
}

// Every kind has its own advice; a password's says not to send a secret.
func TestInputAdvicePerKind(t *testing.T) {
	seen := map[string]string{}
	for _, k := range []string{InputPrompt, InputSecret, InputPager, InputEditor, InputREPL, InputMenu, InputForm, InputScreen, InputStdin} {
		a := inputWait{kind: k}.advice()
		if other, dup := seen[a]; dup {
			t.Errorf("%s and %s share the advice %q", k, other, a)
		}
		seen[a] = k
	}
	if a := (inputWait{kind: InputSecret}).advice(); !strings.Contains(a, "never send a secret") {
		t.Errorf("password advice %q", a)
	}
}

func TestBoundedReadWaitsOutItsTimeout(t *testing.T) {
	const sec = time.Second
	timed := func(d time.Duration) func(*sampler.Tree) {
		return func(t *sampler.Tree) { t.ReadingTTYTimed, t.ReadingTTYTimeout = true, d }
	}
	cases := []struct {
		name string
		tr   sampler.Tree
		want time.Duration
	}{
		{"a plain read", tree(reading(sampler.TTYLine, "bash")), 3 * sec},
		{"read -t 14", tree(reading(sampler.TTYLine, "bash"), timed(14*sec)), 16 * sec},
		{"read -t 1 is shorter than the wait", tree(reading(sampler.TTYLine, "bash"), timed(1*sec)), 3 * sec},
		{"a timeout of an hour is a wait for input", tree(reading(sampler.TTYLine, "bash"), timed(time.Hour)), 3 * sec},
		{"an editor's housekeeping timeout", tree(reading(sampler.TTYRaw, "vi"), timed(4*sec)), 3 * sec},
	}
	for _, tc := range cases {
		if got := inputWaitFor(tc.tr, 3*sec); got != tc.want {
			t.Errorf("%s: waits %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A forwarder's read is not a wait for a person, at a fast check or a due one.
func TestForwarderIsNotAnInputWait(t *testing.T) {
	const sec = time.Second
	fwd := func(t *sampler.Tree) { t.Forwarding = true }
	runAll(t, []scenario{{
		name: "ssh forwarding the terminal to a busy remote",
		cfg:  config(), cmd: "ssh build01 'sleep 20; echo done'",
		steps: []step{
			{at: 20 * sec, fast: true, tree: tree(reading(sampler.TTYLine, "ssh"), fwd), want: want{}},
			{at: 40 * sec, fast: true, tree: tree(reading(sampler.TTYLine, "ssh"), fwd), want: want{}},
		},
	}})
}

// The debug log names the process and the call that decided: pid, argv[0],
// the syscall and its timeout.
func TestEvidenceNamesProcessAndSyscall(t *testing.T) {
	timer := tree(func(t *sampler.Tree) {
		t.Procs[1].Comm, t.Procs[1].Argv = "node", []string{"node", "server.js"}
		t.TimerSleep = true
		t.Timers = []sampler.Timer{{PID: 101, TID: 104, Comm: "node", Syscall: "epoll_pwait", Timeout: 12 * time.Second}}
	})
	if got, want := timersEvidence(timer), "timer pending: `node` pid 101 thread 104 (`node`) in epoll_pwait, timeout 12s"; got != want {
		t.Errorf("timers evidence %q, want %q", got, want)
	}
	idle := tree(func(t *sampler.Tree) {
		t.Procs[0].Children = 1
		t.Procs[1].Comm, t.Procs[1].Argv, t.Procs[1].SyscallName = "python3", []string{"python3", "deadlock.py"}, "futex"
	})
	if got, want := blockedEvidence(idle), "blocked: `python3` pid 101 (`python3`) in futex, no timeout"; got != want {
		t.Errorf("blocked evidence %q, want %q", got, want)
	}
	read := tree(reading(sampler.TTYLine, "bash"), withArgv("bash", "-c", "read -t 14 a"), func(t *sampler.Tree) {
		t.ReadingTTYSyscall, t.ReadingTTYTimed, t.ReadingTTYTimeout = "pselect6", true, 14*time.Second
	})
	if got := inputEvidence(read, 3*time.Second); !strings.Contains(got, "(pid 101, argv[0] `bash`) blocked in pselect6 (timeout 14s)") {
		t.Errorf("input evidence %q", got)
	}
}

// A timer the reader holds is waited out only for a line-mode read (a prompt
// that takes a default answer); a raw-mode reader's timers are housekeeping.
func TestReaderDeadlineOnlyInLineMode(t *testing.T) {
	held := func(t *sampler.Tree) {
		t.TimerSleep = true
		t.Timers = []sampler.Timer{{PID: 101, TID: 101, Comm: t.Procs[1].Comm, Syscall: "epoll_pwait", Timeout: 8 * time.Second}}
	}
	if readerDeadline(tree(reading(sampler.TTYLine, "goprompt"), held)) == nil {
		t.Error("a line-mode read whose process holds an 8 s deadline is not waited out")
	}
	if d := readerDeadline(tree(reading(sampler.TTYRaw, "node"), held)); d != nil {
		t.Errorf("node's REPL in raw mode is waited out for its %s timer", d.Timeout)
	}
}
