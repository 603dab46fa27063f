package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fast settings: a due check two seconds in, then every two seconds.
var fastChecks = []string{"--set", "watchdog.firstCheckMin=0.03", "--set", "watchdog.intervalMin=0.03"}

func runJSON(t *testing.T, e *env, args ...string) (runReport, result) {
	t.Helper()
	r := e.run(append([]string{"run", "--json"}, args...)...)
	var rep runReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("run --json: %v\nstdout %q\nstderr %q", err, r.stdout, r.stderr)
	}
	return rep, r
}

func TestPromptNobodyAnswersIsDetachedAndCanBeAnswered(t *testing.T) {
	e := newEnv(t)
	e.extra = []string{"HANGDOG_DEBUG_WATCHDOG=1"}
	rep, r := runJSON(t, e, "--set", "watchdog.inputWaitSec=2", `read -p 'Continue? [y/N] ' a; [ "$a" = y ]`)
	if rep.Status != "detached" || r.code != 0 {
		t.Fatalf("status %q exit %d, want detached 0 (%s)", rep.Status, r.code, r.stderr)
	}
	if !strings.Contains(rep.Reason, "Continue? [y/N]") || !strings.Contains(rep.Output, "Continue?") {
		t.Errorf("reason %q / output %q do not show the prompt", rep.Reason, rep.Output)
	}
	if s := e.run("bg", "send", rep.TaskID, `y\n`); s.code != 0 {
		t.Fatalf("bg send: %s", s.stderr)
	}
	if w := e.run("bg", "wait", rep.TaskID, "--timeout", "10s"); w.code != 0 {
		t.Errorf("bg wait exit %d after answering y", w.code)
	}
	log := e.run("log", "--task", rep.TaskID)
	if !strings.Contains(log.stdout, "trigger=input") || !strings.Contains(log.stdout, "action=background") {
		t.Errorf("debug log lacks the deciding check:\n%s", log.stdout)
	}
	if other := e.run("log", "--task", "t999"); other.stdout != "" {
		t.Errorf("log --task filtered nothing: %q", other.stdout)
	}
}

func TestDisabledWatchdogLeavesAPromptAlone(t *testing.T) {
	e := newEnv(t)
	// inputWaitSec=1: an enabled watchdog would detach this long before the
	// command's own 3-second timeout.
	rep, _ := runJSON(t, e, "--set", "watchdog.enabled=false", "--set", "watchdog.inputWaitSec=1", "timeout 3 bash -c 'read -p \"name? \" a'")
	if rep.Status != "exited" || rep.ExitCode == nil || *rep.ExitCode != 124 {
		t.Errorf("with the watchdog off: %+v, want the command's own timeout (exit 124)", rep)
	}
}

func TestForcedKillReportsWhyAndCountsAsError(t *testing.T) {
	e := newEnv(t)
	e.extra = []string{"HANGDOG_WATCHDOG_FORCE_ACT=1"}
	args := append([]string{"--set", "watchdog.action=kill"}, fastChecks...)
	rep, r := runJSON(t, e, append(args, "sleep 60")...)
	if rep.Status != "killed" || r.code == 0 {
		t.Fatalf("status %q exit %d, want killed and a non-zero exit", rep.Status, r.code)
	}
	if !strings.HasPrefix(rep.Reason, "⚠ Killed by hangdog watchdog after ") || !strings.Contains(rep.Reason, "HANGDOG_WATCHDOG_FORCE_ACT") {
		t.Errorf("reason %q", rep.Reason)
	}
	if ev := e.run("events", "--json"); !strings.Contains(ev.stdout, `"killed"`) {
		t.Errorf("no kill event: %s", ev.stdout)
	}
}

func TestForcedWarnKeepsTheCommandRunning(t *testing.T) {
	e := newEnv(t)
	e.extra = []string{"HANGDOG_WATCHDOG_FORCE_ACT=1"}
	args := append([]string{"run", "--set", "watchdog.action=warn"}, fastChecks...)
	r := e.run(append(args, "sleep 3; echo still-here")...)
	if r.code != 0 || !strings.Contains(r.stdout, "still-here") {
		t.Fatalf("exit %d stdout %q: the warned command did not finish", r.code, r.stdout)
	}
	if !strings.Contains(r.stderr, "watchdog warning") {
		t.Errorf("stderr %q lacks the warning", r.stderr)
	}
	if ev := e.run("events", "--json"); !strings.Contains(ev.stdout, `"warning"`) {
		t.Errorf("no warning event: %s", ev.stdout)
	}
}

func TestServiceIsDetachedWithItsAddress(t *testing.T) {
	e := newEnv(t)
	rep, _ := runJSON(t, e, append(fastChecks, "python3 -m http.server 0 --bind 127.0.0.1")...)
	if rep.Status != "detached" || !strings.Contains(rep.Reason, "127.0.0.1:") {
		t.Fatalf("report %+v, want detached with the listening address", rep)
	}
	defer e.run("bg", "kill", rep.TaskID)
	if tk := e.task(rep.TaskID); tk.Result != nil {
		t.Errorf("the service stopped: %+v", tk.Result)
	}
}

func TestDeadlockIsKilledWithTheEvidence(t *testing.T) {
	e := newEnv(t)
	args := append([]string{"--set", "watchdog.action=kill"}, fastChecks...)
	deadlock := `python3 -c 'import threading; l = threading.Lock(); l.acquire(); print("locked", flush=True); l.acquire()'`
	rep, r := runJSON(t, e, append(args, deadlock)...)
	if rep.Status != "killed" || r.code == 0 {
		t.Fatalf("status %q exit %d, want killed (reason %q)", rep.Status, r.code, rep.Reason)
	}
	for _, want := range []string{"⚠ Killed by hangdog watchdog after ", "consecutive checks", "no new output for", "Do not blindly re-run; investigate or change approach."} {
		if !strings.Contains(rep.Reason, want) {
			t.Errorf("reason %q lacks %q", rep.Reason, want)
		}
	}
}

func TestDetachAfterHandsBackALongRun(t *testing.T) {
	e := newEnv(t)
	rep, r := runJSON(t, e, "--detach-after", "1s", "--set", "watchdog.enabled=false", "sleep 2; echo finished")
	if rep.Status != "detached" || r.code != 0 || !strings.Contains(rep.Reason, "--detach-after 1s") {
		t.Fatalf("report %+v exit %d, want detached naming --detach-after", rep, r.code)
	}
	if w := e.run("bg", "wait", rep.TaskID, "--timeout", "10s"); w.code != 0 {
		t.Fatalf("the detached run did not finish by itself: exit %d", w.code)
	}
	if l := e.run("bg", "logs", rep.TaskID); !strings.Contains(l.stdout, "finished") {
		t.Errorf("logs %q lack the end of the run", l.stdout)
	}
}

// With default settings and the debug log off, a task's last checks are
// still kept: `log --task` explains a detach (the check that acted, and the
// process and syscall it saw) and a run that was left alone.
func TestLogTaskExplainsChecksWithoutDebug(t *testing.T) {
	e := newEnv(t)
	rep, _ := runJSON(t, e, `read -p 'Overwrite? [y/N] ' a`)
	if rep.Status != "detached" {
		t.Fatalf("status %q, want detached by the input trigger", rep.Status)
	}
	log := e.run("log", "--task", rep.TaskID)
	for _, want := range []string{"trigger=input", "action=background", "input=prompt", "blocked in read"} {
		if !strings.Contains(log.stdout, want) {
			t.Errorf("log --task %s lacks %q:\n%s%s", rep.TaskID, want, log.stdout, log.stderr)
		}
	}
	e.run("bg", "kill", rep.TaskID)

	quiet, _ := runJSON(t, e, "sleep 3")
	if quiet.Status != "exited" {
		t.Fatalf("sleep 3: status %q, want exited", quiet.Status)
	}
	log = e.run("log", "--task", quiet.TaskID)
	if !strings.Contains(log.stdout, "action=none") || !strings.Contains(log.stdout, "nothing reads the terminal") {
		t.Errorf("log --task %s does not say why sleep 3 was left alone:\n%s%s", quiet.TaskID, log.stdout, log.stderr)
	}
}

// A command that never ends is acted on at the agreeChecks-th due check (the
// second), not one later, when what shows it never ends began at its start: a
// line and then silence (idle counts from the last activity), or a spinner
// turning over nothing (the first due check compares the line with the one the
// supervisor's first sample saw), or a loop whose disk I/O is only the
// filesystem's bookkeeping (disk I/O is work when it carries data).
func TestNeverEndingIsActedOnAtTheSecondDueCheck(t *testing.T) {
	for _, c := range []struct {
		name, cmd, trigger string
		script             string // churn.py, in the command's directory
	}{
		{"a line then silence", `python3 -c 'import signal; print("listening", flush=True); signal.pause()'`, "trigger=idle", ""},
		{"a spinner over nothing", `while :; do for c in '|' / - '\'; do printf '\r%s waiting for the lock' "$c"; sleep 0.2; done; done`, "trigger=looping", ""},
		// A loop whose every step makes and removes files, in a script so
		// that the command line shows no loop: the kernel charges the pages
		// that dirties as disk writes (ext4 without a journal), though
		// nothing is written. That is the filesystem's bookkeeping, not work
		// (Tcl's exec makes a temp file for every child). Where nothing is
		// charged for it, this is a plain sleep loop. One process does it
		// all, starting none: a shell loop's `rm` and `sleep` cost CPU to
		// start, which on a busy machine made a one-second sample read as
		// work (2 % of a core) and the action one check late; that is a
		// question for the CPU rule, not for this one.
		{"a loop that makes and removes files", "python3 churn.py", "trigger=idle",
			"import os, time\nwhile True:\n    for i in range(10):\n        open('scratch%d' % i, 'w').close()\n    for i in range(10):\n        os.remove('scratch%d' % i)\n    time.sleep(1)\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			if c.script != "" {
				if err := os.WriteFile(filepath.Join(filepath.Dir(e.home), "churn.py"), []byte(c.script), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			// The corpora's short timings: a due check at 3 s, then every 3 s.
			// A miss comes back at 20 s, with no acting check in the log.
			rep, _ := runJSON(t, e, "--detach-after", "20s", "--set", "watchdog.firstCheckMin=0.05", "--set", "watchdog.intervalMin=0.05", c.cmd)
			defer e.run("bg", "kill", rep.TaskID)
			if rep.Status != "detached" {
				t.Fatalf("status %q, want detached (reason %q)", rep.Status, rep.Reason)
			}
			log := e.run("log", "--task", rep.TaskID)
			due := 0
			for _, line := range strings.Split(log.stdout, "\n") {
				if !strings.Contains(line, " due ") {
					continue
				}
				due++
				if strings.Contains(line, "action=background") {
					if due != 2 || !strings.Contains(line, c.trigger) {
						t.Errorf("acted at due check %d, want the second, by %s:\n%s", due, c.trigger, log.stdout)
					}
					return
				}
			}
			t.Errorf("log --task %s has no acting check:\n%s%s", rep.TaskID, log.stdout, log.stderr)
		})
	}
}
