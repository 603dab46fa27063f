package watchdog

import (
	"strconv"
	"testing"
	"time"

	"github.com/hangdog/hangdog/jev"
	"github.com/hangdog/hangdog/settings/watchdogconf"
	"github.com/hangdog/hangdog/supervisor/sampler"
)

// Every scenario below runs the real local judge on the Watch's window state.

func TestIdleTrigger(t *testing.T) {
	runAll(t, []scenario{
		{
			name: "silent with no CPU, disk or timer on two due checks acts",
			cfg:  config(), cmd: "./deploy.sh",
			steps: []step{
				{at: check1, tree: tree(), want: want{status: "stuck", streak: 1}},
				{at: check2, tree: tree(), want: want{act: true, trigger: TriggerIdle, action: ActionBackground, status: "stuck", streak: 2,
					reason: "stuck: no CPU, disk I/O or output for 300s and no timer pending"}},
			},
		},
		{
			name: "a busy window restarts the count",
			cfg:  config(), cmd: "./deploy.sh",
			steps: []step{
				{at: check1, tree: tree()},
				{at: check2, tree: tree(cpu(40)), want: want{status: "progressing"}},
				{at: check3, tree: tree(), want: want{status: "stuck", streak: 1}},
				{at: check4, tree: tree(), want: want{act: true, trigger: TriggerIdle, action: ActionBackground, streak: 2,
					reason: "for 360s"}},
			},
		},
		{
			name: "a process sleeping on a timer is not idle",
			cfg:  config(), cmd: "./poll.sh",
			steps: []step{
				{at: check1, tree: tree(timer), want: want{status: "progressing"}},
				{at: check2, tree: tree(timer), want: want{status: "progressing"}},
				{at: check3, tree: tree(timer), want: want{status: "progressing"}},
			},
		},
		{
			name: "a failed sample never counts as idle",
			cfg:  config(), cmd: "./deploy.sh",
			steps: []step{
				{at: check1, tree: tree()},
				{at: check2, failed: true},
				{at: check3, tree: tree(), want: want{streak: 1}},
				{at: check4, tree: tree(), want: want{act: true, trigger: TriggerIdle, action: ActionBackground, streak: 2}},
			},
		},
		{
			name: "a sample with holes never counts as idle",
			cfg:  config(), cmd: "./deploy.sh",
			steps: []step{
				{at: check1, tree: tree(incomplete)},
				{at: check2, tree: tree(incomplete)},
				{at: check3, tree: tree(incomplete)},
			},
		},
		{
			name: "a spinner is output: not idle",
			cfg:  config(), cmd: "./deploy.sh",
			steps: []step{
				{at: check1, tree: tree()},
				{at: check2, out: func(s *sim) { s.spin(4*time.Minute, 40) }, tree: tree()},
			},
		},
		{
			// A few pages now and then (a temp file made and removed): the
			// filesystem's bookkeeping, not work (disk.go).
			name: "the filesystem's bookkeeping alone is idle",
			cfg:  config(), cmd: "./deploy.sh",
			steps: []step{
				{at: check1, tree: tree(disk(20 << 10))},
				{at: check2, tree: tree(disk(20 << 10)), want: want{act: true, trigger: TriggerIdle, action: ActionBackground, streak: 2}},
			},
		},
		{
			name: "disk I/O alone is not idle",
			cfg:  config(), cmd: "./deploy.sh",
			steps: []step{
				{at: check1, tree: tree(disk(64 << 20))},
				{at: check2, tree: tree(disk(64 << 20))},
			},
		},
		{
			name: "agreeChecks 3 needs three idle checks",
			cfg:  config(func(c *watchdogconf.Watchdog) { c.AgreeChecks = 3 }), cmd: "./deploy.sh",
			steps: []step{
				{at: check1, tree: tree()},
				{at: check2, tree: tree()},
				{at: check3, tree: tree(), want: want{act: true, trigger: TriggerIdle, action: ActionBackground, streak: 3}},
			},
		},
		{
			name: "agreeChecks 1: the model's stop acts at once, idle would need two checks",
			cfg:  config(func(c *watchdogconf.Watchdog) { c.AgreeChecks = 1; c.Action = ActionKill }), cmd: "./deploy.sh",
			steps: []step{
				{at: check1, tree: tree(), want: want{act: true, trigger: TriggerStop, action: ActionKill}},
			},
		},
		{
			name: "confidence above the model's stops every streak",
			cfg:  config(func(c *watchdogconf.Watchdog) { c.Confidence = 0.9 }), cmd: "./deploy.sh",
			steps: []step{
				{at: check1, tree: tree()},
				{at: check2, tree: tree()},
				{at: check3, tree: tree()},
				{at: check4, tree: tree(), want: want{status: "stuck", streak: 0}},
			},
		},
	})
}

func TestStopTrigger(t *testing.T) {
	runAll(t, []scenario{
		{
			name: "a network wait the model says to stop on two checks acts",
			cfg:  config(), cmd: "./sync.sh",
			steps: []step{
				{at: check1, tree: tree(connecting("10.1.2.3:443")), want: want{status: "waiting"}},
				{at: check2, tree: tree(connecting("10.1.2.3:443"))},
				{at: check3, tree: tree(connecting("10.1.2.3:443"))},
				{at: check4, tree: tree(connecting("10.1.2.3:443")), want: want{act: true, trigger: TriggerStop, action: ActionBackground,
					status: "waiting", streak: 2, reason: "stop waiting (0.60) on 2 checks in a row"}},
			},
		},
		{
			name: "new distinct output vetoes stop, and the streak acts once it stops",
			cfg:  config(), cmd: "tail -f app.log",
			steps: []step{
				{at: check1, tree: tree(comm("tail"))},
				{at: check2, out: func(s *sim) { s.lines(4*time.Minute, 10, 10, 0.1, "GET /health 200") },
					tree: tree(comm("tail")), want: want{trigger: TriggerStop, veto: VetoProgress, streak: 2}},
				{at: check3, tree: tree(comm("tail")), want: want{act: true, trigger: TriggerStop, action: ActionBackground, streak: 3}},
			},
		},
		{
			name: "CPU vetoes stop",
			cfg:  config(), cmd: "tail -f app.log",
			steps: []step{
				{at: check1, tree: tree(comm("tail"))},
				{at: check2, tree: tree(comm("tail"), cpu(30)), want: want{trigger: TriggerStop, veto: VetoProgress}},
			},
		},
		{
			name: "disk I/O vetoes stop",
			cfg:  config(), cmd: "tail -f app.log",
			steps: []step{
				{at: check1, tree: tree(comm("tail"))},
				{at: check2, tree: tree(comm("tail"), disk(64<<20)), want: want{trigger: TriggerStop, veto: VetoProgress}},
			},
		},
		{
			name: "repeated lines are not progress",
			cfg:  config(), cmd: "tail -f app.log",
			steps: []step{
				{at: check1, tree: tree(comm("tail"))},
				{at: check2, out: func(s *sim) { s.lines(4*time.Minute, 3, 1, 0.9, "GET /health 200") },
					tree: tree(comm("tail")), want: want{act: true, trigger: TriggerStop, action: ActionBackground}},
			},
		},
	})
}

func TestServiceIsNeverKilled(t *testing.T) {
	runAll(t, []scenario{
		{
			name: "follow mode under kill: vetoed",
			cfg:  config(withAction(ActionKill)), cmd: "tail -f app.log",
			steps: []step{
				{at: check1, tree: tree(comm("tail"))},
				{at: check2, tree: tree(comm("tail")), want: want{trigger: TriggerStop, veto: VetoService}},
				{at: check3, tree: tree(comm("tail")), want: want{trigger: TriggerStop, veto: VetoService}},
			},
		},
		{
			name: "follow mode under warn: warned",
			cfg:  config(withAction(ActionWarn)), cmd: "tail -f app.log",
			steps: []step{
				{at: check1, tree: tree(comm("tail"))},
				{at: check2, tree: tree(comm("tail")), want: want{act: true, trigger: TriggerStop, action: ActionWarn}},
			},
		},
		{
			name: "a listener the command line does not know under kill: vetoed",
			cfg:  config(withAction(ActionKill)), cmd: "./server",
			steps: []step{
				{at: check1, tree: tree(listening("0.0.0.0:8080"))},
				{at: check2, tree: tree(listening("0.0.0.0:8080")), want: want{trigger: TriggerStop, veto: VetoService}},
			},
		},
		{
			name: "a stuck ssh session is not a service: killed",
			cfg:  config(withAction(ActionKill)), cmd: "ssh build-host",
			steps: []step{
				{at: check1, tree: tree(comm("ssh"), connecting("10.9.9.9:22"))},
				{at: check2, tree: tree(comm("ssh"), connecting("10.9.9.9:22"))},
				{at: check3, tree: tree(comm("ssh"), connecting("10.9.9.9:22"))},
				{at: check4, tree: tree(comm("ssh"), connecting("10.9.9.9:22")), want: want{act: true, trigger: TriggerStop, action: ActionKill}},
			},
		},
	})
}

func TestExpectTrigger(t *testing.T) {
	const cmd = "curl -s https://example.com/big"
	conn := established("93.184.216.34:443")
	runAll(t, []scenario{
		{
			name: "a seconds command still waiting at its second due check acts",
			cfg:  config(), cmd: cmd,
			steps: []step{
				{at: check1, tree: tree(comm("curl"), conn), want: want{status: "waiting"}},
				{at: check2, tree: tree(comm("curl"), conn), want: want{act: true, trigger: TriggerExpect, action: ActionBackground, streak: 2,
					reason: "expected to finish in seconds but still running after 300s"}},
			},
		},
		{
			name: "a download writing to disk is progress",
			cfg:  config(), cmd: cmd,
			steps: []step{
				{at: check1, tree: tree(comm("curl"), conn, disk(50<<20))},
				{at: check2, tree: tree(comm("curl"), conn, disk(50<<20)), want: want{trigger: TriggerExpect, veto: VetoProgress}},
			},
		},
		{
			name: "a progress meter rewriting one line is output, not progress",
			cfg:  config(), cmd: cmd,
			steps: []step{
				{at: check1, out: func(s *sim) { s.spin(time.Minute, 300) }, tree: tree(comm("curl"), conn)},
				{at: check2, out: func(s *sim) { s.spin(4*time.Minute, 300) }, tree: tree(comm("curl"), conn),
					want: want{act: true, trigger: TriggerExpect, action: ActionBackground}},
			},
		},
		{
			name: "a process sleeping in a timer is waiting for a set time, not stuck",
			cfg:  config(), cmd: cmd,
			steps: []step{
				{at: check1, tree: tree(comm("curl"), conn, timer)},
				{at: check2, tree: tree(comm("curl"), conn, timer), want: want{status: "progressing"}},
			},
		},
		{
			name: "a failed sample cannot rule out progress",
			cfg:  config(), cmd: cmd,
			steps: []step{
				{at: check1, tree: tree(comm("curl"), conn)},
				{at: check2, failed: true, want: want{trigger: TriggerExpect, veto: VetoIncomplete}},
			},
		},
		{
			name: "a declared timeout vetoes until it has passed",
			cfg:  config(), cmd: "timeout 600 " + cmd,
			steps: []step{
				{at: check1, tree: tree(comm("curl"), conn)},
				{at: check2, tree: tree(comm("curl"), conn), want: want{trigger: TriggerExpect, veto: "bound (until 12:10:05 / 600s)"}},
				{at: check3, tree: tree(comm("curl"), conn), want: want{trigger: TriggerExpect, veto: "bound (until 12:10:05 / 600s)"}},
				// Past the bound, the model's stop (ranked before expect) acts.
				{at: check4, tree: tree(comm("curl"), conn), want: want{act: true, trigger: TriggerStop, action: ActionBackground}},
			},
		},
	})
}

func TestLoopingTrigger(t *testing.T) {
	retry := func(at time.Duration) func(s *sim) {
		return func(s *sim) {
			s.lines(at, 36, 1, 0.95, "Connection refused, retrying in 5s (attempt 7)")
		}
	}
	runAll(t, []scenario{
		{
			name: "repetitive output on two checks acts, output or not",
			cfg:  config(), cmd: "./retry.sh",
			steps: []step{
				{at: check1, out: retry(check1 - time.Second), tree: tree(), want: want{status: "looping", streak: 1}},
				{at: check2, out: retry(check2 - time.Second), tree: tree(cpu(6)), want: want{act: true, trigger: TriggerLooping, action: ActionBackground,
					status: "looping", streak: 2, reason: "last line `Connection refused, retrying in 5s (attempt 7)`"}},
			},
		},
		{
			name: "a declared bound vetoes looping",
			cfg:  config(), cmd: `for i in $(seq 1 150); do curl -s localhost:9 || echo "Connection refused, retrying"; sleep 3; done`,
			steps: []step{
				{at: check1, out: retry(check1 - time.Second), tree: tree(timer)},
				{at: check2, out: retry(check2 - time.Second), tree: tree(timer), want: want{trigger: TriggerLooping, veto: "bound (until 12:07:35 / 450s)"}},
				{at: check3, out: retry(check3 - time.Second), tree: tree(timer), want: want{act: true, trigger: TriggerLooping, action: ActionBackground, streak: 3}},
			},
		},
	})
}

// A remote model may call a service's output looping (the local judge never
// does: a service logging is progress to it), so this verdict is written out.
func TestLoopingServiceUnderKillIsNotKilled(t *testing.T) {
	s := newSim(t, config(withAction(ActionKill)), "npm run dev")
	looping := &jev.Verdict{
		Status:     jev.Answer{ID: "status", Choice: jev.Looping, Confidence: 0.9, Backend: "typesafe"},
		Persistent: jev.Answer{ID: "persistent", Value: 0.95, Backend: "typesafe"},
		Stop:       jev.Answer{ID: "stop", Value: 0.3, Backend: "typesafe"},
		Expect:     jev.Answer{ID: "expect", Choice: jev.ExpectNever, Confidence: 0.9, Backend: "typesafe"},
	}
	for i, at := range []time.Duration{check1, check2} {
		s.lines(at-time.Second, 36, 1, 0.95, "Error: connect ECONNREFUSED 127.0.0.1:5432")
		o := s.observe(at, tree(comm("node"), listening("127.0.0.1:3000")), true, false)
		o.Verdict = looping
		d := s.w.Due(o)
		w := want{status: "looping"}
		if i == 1 {
			w = want{trigger: TriggerLooping, veto: VetoService, streak: 2}
		}
		w.check(t, "check "+strconv.Itoa(i+1), d)
	}
}

func TestARedrawnProgressDisplayIsNotALoop(t *testing.T) {
	// docker pull redraws its layer lines in place: the same masked lines
	// again and again, which is progress, not a retry loop.
	s := newSim(t, config(), "docker pull postgres:16")
	for i, at := range []time.Duration{check1, check2, check3} {
		s.lines(at-time.Second, 40, 3, 0.95, "a2abf6c4d29d: Downloading  12.5MB/31.4MB")
		s.out.Redrawing = true
		d := s.due(at, tree(comm("docker")), true, false)
		want{status: "progressing"}.check(t, "check "+strconv.Itoa(i+1), d)
	}
}

func TestLoopingSeenAcrossManySnapshots(t *testing.T) {
	// The supervisor snapshots output for every fast-check decision, so a
	// retry loop's lines reach the Watch one per snapshot; the window must
	// still read as a few distinct lines repeated, not as new lines.
	s := newSim(t, config(), "./retry.sh")
	step := func(from, to time.Duration) {
		for at := from; at < to; at += 20 * time.Second {
			s.lines(at, 1, 1, 0.95, "Connection refused, retrying in 5s (attempt 7)")
			s.w.FastCheckWanted(s.snapshot(at), t0.Add(at))
		}
	}
	step(10*time.Second, check1)
	want{status: "looping", streak: 1}.check(t, "check 1", s.due(check1, tree(), true, false))
	step(check1+10*time.Second, check2)
	want{act: true, trigger: TriggerLooping, action: ActionBackground, streak: 2}.check(t, "check 2", s.due(check2, tree(), true, false))
}

func TestServiceTrigger(t *testing.T) {
	banner := func(s *sim) {
		s.lines(3*time.Second, 6, 6, 0, "  ➜  Local:   http://localhost:5173/")
	}
	runAll(t, []scenario{
		{
			name: "a foreground dev server, listening and quiet for a full check, is detached",
			cfg:  config(), cmd: "npm run dev",
			steps: []step{
				{at: check1, out: banner, tree: tree(comm("node"), listening("127.0.0.1:5173"))},
				{at: check2, tree: tree(comm("node"), listening("127.0.0.1:5173")), want: want{act: true, trigger: TriggerService, action: ActionBackground, streak: 2,
					reason: "service listening on 127.0.0.1:5173, up and idle — detached so you are not blocked"}},
			},
		},
		{
			name: "a ready line is enough when the socket is not seen",
			cfg:  config(), cmd: "vite",
			steps: []step{
				{at: check1, out: banner, tree: tree(comm("node"))},
				{at: check2, tree: tree(comm("node")), want: want{act: true, trigger: TriggerService, action: ActionBackground,
					reason: "service ready at http://localhost:5173/, up and idle"}},
			},
		},
		{
			name: "a service still logging is not detached as idle",
			cfg:  config(), cmd: "npm run dev",
			steps: []step{
				{at: check1, out: banner, tree: tree(comm("node"), listening("127.0.0.1:5173"))},
				{at: check2, out: func(s *sim) { s.lines(4*time.Minute, 8, 8, 0.1, "GET /src/main.ts 200") },
					tree: tree(comm("node"), listening("127.0.0.1:5173")), want: want{trigger: TriggerStop, veto: VetoProgress}},
			},
		},
		{
			name: "under kill a service is left alone",
			cfg:  config(withAction(ActionKill)), cmd: "npm run dev",
			steps: []step{
				{at: check1, out: banner, tree: tree(comm("node"), listening("127.0.0.1:5173"))},
				{at: check2, tree: tree(comm("node"), listening("127.0.0.1:5173")), want: want{trigger: TriggerStop, veto: VetoService}},
			},
		},
		{
			name: "a task already in the background is not detached again: warned",
			cfg:  config(), cmd: "npm run dev", opts: []Option{InBackground(true)},
			steps: []step{
				{at: check1, out: banner, tree: tree(comm("node"), listening("127.0.0.1:5173"))},
				{at: check2, tree: tree(comm("node"), listening("127.0.0.1:5173")), want: want{act: true, trigger: TriggerStop, action: ActionWarn}},
			},
		},
		{
			name: "a declared bound holds a service too",
			cfg:  config(), cmd: "timeout 900 npm run dev",
			steps: []step{
				{at: check1, out: banner, tree: tree(comm("node"), listening("127.0.0.1:5173"))},
				{at: check2, tree: tree(comm("node"), listening("127.0.0.1:5173")), want: want{trigger: TriggerService, veto: "bound (until 12:15:05 / 900s)"}},
			},
		},
	})
}

func TestForcedAct(t *testing.T) {
	runAll(t, []scenario{
		{
			name: "forces the first due check only, progress or not",
			cfg:  config(), cmd: "make -j8", opts: []Option{ForceAct(true)},
			steps: []step{
				{at: check1, tree: tree(cpu(90)), want: want{act: true, trigger: TriggerForced, action: ActionBackground, reason: "HANGDOG_WATCHDOG_FORCE_ACT=1"}},
				{at: check2, tree: tree(cpu(90)), want: want{status: "progressing"}},
			},
		},
		{
			name: "forced kill",
			cfg:  config(withAction(ActionKill)), cmd: "sleep 600", opts: []Option{ForceAct(true)},
			steps: []step{
				{at: check1, tree: tree(timer), want: want{act: true, trigger: TriggerForced, action: ActionKill}},
			},
		},
		{
			name: "disabled still wins",
			cfg:  config(func(c *watchdogconf.Watchdog) { c.Enabled = false }), cmd: "make", opts: []Option{ForceAct(true)},
			steps: []step{
				{at: check1, tree: tree(), want: want{trigger: TriggerForced, veto: VetoDisabled}},
			},
		},
		{
			name: "a service is still never killed",
			cfg:  config(withAction(ActionKill)), cmd: "npm run dev", opts: []Option{ForceAct(true)},
			steps: []step{
				{at: check1, tree: tree(listening("127.0.0.1:3000")), want: want{trigger: TriggerForced, veto: VetoService}},
			},
		},
	})
}

func TestDisabledNeverActs(t *testing.T) {
	off := config(func(c *watchdogconf.Watchdog) { c.Enabled = false })
	runAll(t, []scenario{
		{
			name: "idle", cfg: off, cmd: "./deploy.sh",
			steps: []step{
				{at: check1, tree: tree()},
				{at: check2, tree: tree(), want: want{trigger: TriggerIdle, veto: VetoDisabled, status: "stuck"}},
			},
		},
		{
			name: "input", cfg: off, cmd: "./install.sh",
			steps: []step{
				{at: 40 * time.Second, fast: true, out: func(s *sim) { s.prompt(20*time.Second, "Overwrite? [y/N] ") },
					tree: tree(reading(sampler.TTYLine, "bash")), want: want{trigger: TriggerInput, veto: VetoDisabled}},
			},
		},
	})
}

func TestActingUsesUpTheStreak(t *testing.T) {
	runAll(t, []scenario{
		{
			name: "background once, then a warning after a fresh streak",
			cfg:  config(), cmd: "./deploy.sh",
			steps: []step{
				{at: check1, tree: tree()},
				{at: check2, tree: tree(), want: want{act: true, trigger: TriggerIdle, action: ActionBackground}},
				{at: check3, tree: tree()},
				{at: check4, tree: tree(), want: want{act: true, trigger: TriggerIdle, action: ActionWarn, streak: 2}},
			},
		},
		{
			name: "warn does not repeat at every check",
			cfg:  config(withAction(ActionWarn)), cmd: "./deploy.sh",
			steps: []step{
				{at: check1, tree: tree()},
				{at: check2, tree: tree(), want: want{act: true, trigger: TriggerIdle, action: ActionWarn}},
				{at: check3, tree: tree()},
				{at: check4, tree: tree(), want: want{act: true, trigger: TriggerIdle, action: ActionWarn}},
			},
		},
	})
}

func TestSetBackgroundTurnsBackgroundIntoWarn(t *testing.T) {
	s := newSim(t, config(), "./deploy.sh")
	s.due(check1, tree(), true, false)
	s.w.SetBackground() // the caller pressed Ctrl+B
	want{act: true, trigger: TriggerIdle, action: ActionWarn}.check(t, "check 2", s.due(check2, tree(), true, false))
}
