package watchdog

import (
	"strings"
	"testing"
	"time"

	"github.com/hangdog/hangdog/settings/watchdogconf"
	"github.com/hangdog/hangdog/supervisor/sampler"
)

func promptAt(at time.Duration, text string) func(*sim) {
	return func(s *sim) { s.prompt(at, text) }
}

func TestInputTrigger(t *testing.T) {
	const sec = time.Second
	line := tree(reading(sampler.TTYLine, "bash"))
	runAll(t, []scenario{
		{
			name: "a prompt nobody answers acts after inputWaitSec, once",
			cfg:  config(), cmd: "./install.sh",
			steps: []step{
				{at: 31 * sec, fast: true, out: promptAt(30*sec, "Overwrite? [y/N] "), tree: line,
					want: want{status: "waiting", inputKind: InputPrompt}},
				{at: 40 * sec, fast: true, tree: line, want: want{act: true, trigger: TriggerInput, action: ActionBackground, inputKind: InputPrompt,
					reason: "waiting for input: last line `Overwrite? [y/N] ` (sending the task input answers it)"}},
				{at: 45 * sec, fast: true, tree: line, want: want{status: "waiting"}},
			},
		},
		{
			name: "a password prompt",
			cfg:  config(), cmd: "sudo apt-get install -y jq",
			steps: []step{
				{at: 20 * sec, fast: true, out: promptAt(5*sec, "[sudo] password for ann: "), tree: tree(reading(sampler.TTYSecret, "sudo")),
					want: want{act: true, trigger: TriggerInput, action: ActionBackground, inputKind: InputSecret,
						reason: "waiting for input: password prompt `[sudo] password for ann: `"}},
			},
		},
		{
			name: "a pager",
			cfg:  config(), cmd: "git log",
			steps: []step{
				{at: 20 * sec, fast: true, out: func(s *sim) { s.lines(time.Second, 40, 40, 0, "    fix the parser") },
					tree: tree(reading(sampler.TTYRaw, "less")),
					want: want{act: true, trigger: TriggerInput, action: ActionBackground, inputKind: InputPager, reason: "pager `less`"}},
			},
		},
		{
			name: "an editor",
			cfg:  config(), cmd: "git commit",
			steps: []step{
				{at: 20 * sec, fast: true, tree: tree(reading(sampler.TTYRaw, "vim")),
					want: want{act: true, trigger: TriggerInput, action: ActionBackground, inputKind: InputEditor, reason: "editor `vim` is open"}},
			},
		},
		{
			name: "another full-screen program",
			cfg:  config(), cmd: "htop",
			steps: []step{
				{at: 20 * sec, fast: true, tree: tree(reading(sampler.TTYRaw, "htop")),
					want: want{act: true, trigger: TriggerInput, action: ActionBackground, inputKind: InputScreen, reason: "full-screen program `htop`"}},
			},
		},
		{
			name: "a read with no prompt",
			cfg:  config(), cmd: "cat",
			steps: []step{
				{at: 20 * sec, fast: true, tree: tree(reading(sampler.TTYLine, "cat")),
					want: want{act: true, trigger: TriggerInput, action: ActionBackground, inputKind: InputStdin, reason: "`cat` is reading the terminal with no prompt shown"}},
			},
		},
		{
			name: "a person at the terminal: waiting for you, never acted on",
			cfg:  config(), cmd: "./install.sh",
			steps: []step{
				{at: 40 * sec, fast: true, interactive: true, out: promptAt(5*sec, "Overwrite? [y/N] "), tree: line,
					want: want{veto: VetoInteractive, status: "waiting", reason: "waiting for you: last line `Overwrite? [y/N] `"}},
				{at: check1, interactive: true, tree: line, want: want{veto: VetoInteractive, status: "waiting"}},
			},
		},
		{
			name: "the wait counts from when the person left",
			cfg:  config(), cmd: "./install.sh",
			steps: []step{
				{at: 20 * sec, fast: true, interactive: true, out: promptAt(5*sec, "Overwrite? [y/N] "), tree: line, want: want{veto: VetoInteractive}},
				{at: 30 * sec, fast: true, tree: line, want: want{status: "waiting"}},
				{at: 39 * sec, fast: true, tree: line, want: want{status: "waiting"}},
				{at: 40 * sec, fast: true, tree: line, want: want{act: true, trigger: TriggerInput, action: ActionBackground}},
			},
		},
		{
			name: "new output restarts the wait",
			cfg:  config(), cmd: "./install.sh",
			steps: []step{
				{at: 35 * sec, fast: true, out: promptAt(30*sec, "Overwrite? [y/N] "), tree: line},
				{at: 45 * sec, fast: true, out: promptAt(38*sec, "Overwrite? [y/N] "), tree: line, want: want{status: "waiting"}},
				{at: 48 * sec, fast: true, tree: line, want: want{act: true, trigger: TriggerInput, action: ActionBackground}},
			},
		},
		{
			name: "a sample that saw no read starts the wait later",
			cfg:  config(), cmd: "cat",
			steps: []step{
				{at: 20 * sec, fast: true, tree: tree(comm("cat"))},
				{at: 29 * sec, fast: true, tree: tree(reading(sampler.TTYLine, "cat")), want: want{status: "waiting"}},
				{at: 30 * sec, fast: true, tree: tree(reading(sampler.TTYLine, "cat")), want: want{act: true, trigger: TriggerInput, action: ActionBackground}},
			},
		},
		{
			name: "a declared bound does not veto input",
			cfg:  config(), cmd: "timeout 600 ./install.sh",
			steps: []step{
				{at: 40 * sec, fast: true, out: promptAt(5*sec, "Continue? "), tree: line, want: want{act: true, trigger: TriggerInput, action: ActionBackground}},
			},
		},
		{
			name: "a failed sample says nothing",
			cfg:  config(), cmd: "./install.sh",
			steps: []step{
				{at: 40 * sec, fast: true, out: promptAt(5*sec, "Continue? "), failed: true, want: want{}},
			},
		},
		{
			name: "under kill a pager is killed",
			cfg:  config(withAction(ActionKill)), cmd: "git log",
			steps: []step{
				{at: 20 * sec, fast: true, tree: tree(reading(sampler.TTYRaw, "less")), want: want{act: true, trigger: TriggerInput, action: ActionKill}},
			},
		},
		{
			name: "under kill a dev server asking a question is not",
			cfg:  config(withAction(ActionKill)), cmd: "npm run dev",
			steps: []step{
				{at: 20 * sec, fast: true, out: promptAt(5*sec, "Port 3000 is in use. Use another? (Y/n) "),
					tree: tree(reading(sampler.TTYLine, "node"), listening("127.0.0.1:9229")), want: want{trigger: TriggerInput, veto: VetoService}},
				// The same wait is decided once, not reported at every tick.
				{at: 30 * sec, fast: true, tree: tree(reading(sampler.TTYLine, "node"), listening("127.0.0.1:9229")), want: want{status: "waiting"}},
			},
		},
		{
			name: "at a due check input acts without the streak",
			cfg:  config(), cmd: "./install.sh",
			steps: []step{
				{at: check1, out: promptAt(time.Minute, "Overwrite? [y/N] "), tree: line,
					want: want{act: true, trigger: TriggerInput, action: ActionBackground, status: "waiting", inputKind: InputPrompt}},
			},
		},
		{
			name: "before the wait is over a due check still judges the rest",
			cfg:  config(), cmd: "./install.sh",
			steps: []step{
				{at: check1, out: promptAt(check1-3*sec, "Overwrite? [y/N] "), tree: line, want: want{status: "waiting", inputKind: InputPrompt}},
			},
		},
	})
}

func TestFastCheckWanted(t *testing.T) {
	const sec = time.Second
	w := New(config(), "./install.sh", t0)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	s := newSim(t, config(), "./install.sh")
	s.w = w

	s.lines(5*sec, 1, 1, 0, "checking…")
	if w.FastCheckWanted(s.snapshot(5500*time.Millisecond), at(5500*time.Millisecond)) {
		t.Error("wanted a sample half a second after output")
	}
	if !w.FastCheckWanted(s.snapshot(6*sec), at(6*sec)) {
		t.Error("no sample wanted after a second of silence")
	}
	s.fast(6*sec, tree(), true, false) // nothing reads the terminal
	if w.FastCheckWanted(s.snapshot(6500*time.Millisecond), at(6500*time.Millisecond)) {
		t.Error("wanted another sample within the spacing")
	}
	// The supervisor's ticks are a second apart give or take the scheduler:
	// one a moment early still takes the sample.
	if !w.FastCheckWanted(s.snapshot(6999*time.Millisecond), at(6999*time.Millisecond)) {
		t.Error("no sample wanted at a tick a millisecond short of a second after the last")
	}
	if !w.FastCheckWanted(s.snapshot(7*sec), at(7*sec)) {
		t.Error("no sample wanted a second after the last")
	}
	// After a long silence the samples back off, to at most half the input wait.
	s.fast(65*sec, tree(), true, false)
	if w.FastCheckWanted(s.snapshot(69*sec), at(69*sec)) {
		t.Error("a long-silent command is still sampled every second")
	}
	if !w.FastCheckWanted(s.snapshot(70*sec), at(70*sec)) {
		t.Error("a long-silent command is not sampled after half the input wait")
	}

	// A prompt, seen read: the next sample is wanted when the wait is due.
	s.prompt(80*sec, "Overwrite? [y/N] ")
	if !w.FastCheckWanted(s.snapshot(81*sec), at(81*sec)) {
		t.Error("no sample wanted a second after a prompt")
	}
	s.fast(81*sec, tree(reading(sampler.TTYLine, "bash")), true, false)
	if w.FastCheckWanted(s.snapshot(85*sec), at(85*sec)) {
		t.Error("wanted a sample before the input wait is over")
	}
	if !w.FastCheckWanted(s.snapshot(90*sec), at(90*sec)) {
		t.Error("no sample wanted once the input wait is over")
	}
	if d := s.fast(90*sec, tree(reading(sampler.TTYLine, "bash")), true, false); !d.Act {
		t.Fatalf("not acted on: %s", d.LogLine("t"))
	}
	if w.FastCheckWanted(s.snapshot(95*sec), at(95*sec)) {
		t.Error("wanted more samples of a wait already acted on")
	}

	// A person at the terminal: no fast checks at all.
	s.lines(100*sec, 1, 1, 0, "next")
	w.SetInteractive(true, at(100*sec))
	if w.FastCheckWanted(s.snapshot(120*sec), at(120*sec)) {
		t.Error("wanted a sample while a person is at the terminal")
	}
	w.SetInteractive(false, at(121*sec))
	if !w.FastCheckWanted(s.snapshot(122*sec), at(122*sec)) {
		t.Error("no sample wanted after the person left")
	}

	off := New(config(func(c *watchdogconf.Watchdog) { c.Enabled = false }), "cat", t0)
	if off.FastCheckWanted(s.snapshot(200*sec), at(200*sec)) {
		t.Error("a disabled watchdog wants samples")
	}
}

func TestInputDescriptionsAreOneSafeLine(t *testing.T) {
	hostile := "Password for https://bob:hunter2@git.example.com\x1b[2J\x1b]0;pwned\x07\nrm -rf / ? "
	d := inputReason(classifyInput(tree(reading(sampler.TTYLine, "git")), hostile, nil), false)
	for _, bad := range []string{"\n", "\x1b", "\x07", "hunter2"} {
		if strings.Contains(d, bad) {
			t.Errorf("reason %q contains %q", d, bad)
		}
	}
	if !strings.Contains(d, "rm -rf / ?") {
		t.Errorf("reason %q lost the prompt text", d)
	}
}
