//go:build linux

package supervisor

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/jev"
	"github.com/hangdog/hangdog/jev/askproc"
	"github.com/hangdog/hangdog/settings/watchdogconf"
	"github.com/hangdog/hangdog/supervisor/proto"
	"github.com/hangdog/hangdog/supervisor/sampler"
	"github.com/hangdog/hangdog/supervisor/spawn"
	"github.com/hangdog/hangdog/supervisor/watchdog"
)

// DebugEnv, set to 1 in a run's environment, writes one line per check to
// <home>/logs/watchdog.log (as the setting watchdog.debug does).
const DebugEnv = "HANGDOG_DEBUG_WATCHDOG"

// checkTick is how often the supervisor wakes to see whether a check is
// due or a fast input check is worth a sample. Waking is nearly free; only a
// due or wanted check samples /proc, and only a due one asks the judge.
const checkTick = time.Second

// watch runs the task's checks until ctx ends (the task ended). The watchdog
// decides; this loop only samples, asks and applies.
func (s *supervisor) watch(ctx context.Context) {
	cfg := s.spec.Watchdog
	if !cfg.Enabled {
		return
	}
	background := s.mode() == bgtasks.Background
	if (!background && !cfg.WatchBash) || (background && !cfg.WatchBgTasks) {
		return
	}
	w := watchdog.New(cfg, s.spec.Command, s.meta.Started,
		watchdog.ForceAct(os.Getenv(watchdogconf.ForceActEnv) == "1"),
		watchdog.InBackground(background))
	w.SetInteractive(s.spec.Interactive, time.Now())
	tick := time.NewTicker(checkTick)
	defer tick.Stop()
	// Most commands end within a second. Everything a check needs is set up
	// at the first tick, so they never pay for it.
	var now time.Time
	select {
	case <-ctx.Done():
		return
	case now = <-tick.C:
	}
	// One sampler and one output stream, both fed through the Watch at every
	// check, fast or due: it keeps the window totals a due check judges.
	smp := sampler.New(s.self, s.master)
	judge := jev.NewJudge(jev.NewLocal(), s.remoteBackend(cfg))
	logf := s.openCheckLog(cfg)
	if logf != nil {
		defer logf.Close()
	}
	// Every check is recorded in the task's directory, debug or not, so
	// "why was this detached, or not?" has an answer afterwards (hangdog
	// log --task, and a --max-wait detach's reason). Only the first failure
	// to write it is reported: the check loop goes on without it.
	records := s.reg.NewCheckRecords(s.meta.ID)
	recordErr := false
	// The first sample, taken now, is an observation like any other (a fast
	// check): a loop's sleep it sees, the processes it counts and the line it
	// shows are what the first due check compares with, so that check has
	// something earlier than its own sample to judge a repetition by.
	first := true
	for {
		if !first {
			select {
			case <-ctx.Done():
				return
			case now = <-tick.C:
			}
		}
		if !background && s.mode() == bgtasks.Background {
			// Detached: never judged again unless watchBgTasks covers it.
			if !cfg.WatchBgTasks {
				return
			}
			background = true
			w.SetBackground()
		}
		obs := watchdog.Observation{Now: now, Started: s.meta.Started, Command: s.spec.Command, Interactive: s.spec.Interactive}
		out := s.activity.Snapshot(now)
		due := !now.Before(w.NextDue())
		if !due && !w.FastCheckWanted(out, now) && !first {
			continue
		}
		first = false
		tree, err := smp.Sample()
		obs.Tree, obs.TreeOK, obs.Output = tree, err == nil && tree.Complete, out
		var d watchdog.Decision
		if due {
			v, err := judge.Ask(ctx, w.StateFor(obs))
			if err != nil && ctx.Err() != nil {
				return
			}
			obs.Verdict = &v
			d = w.Due(obs)
		} else {
			d = w.Fast(obs)
		}
		line := d.LogLine(s.meta.ID)
		if logf != nil {
			fmt.Fprintln(logf, line)
		}
		if err := records.Add(line); err != nil && !recordErr {
			recordErr = true
			fmt.Fprintln(os.Stderr, "hangdog supervisor:", err)
		}
		if vb, err := json.Marshal(proto.Verdict{
			Status: d.Status, Confidence: d.Confidence, Streak: d.Streak, Agree: max(cfg.AgreeChecks, 1),
			Trigger: d.Trigger, Veto: d.Veto, Input: d.InputKind, Due: d.Due,
		}); err == nil {
			s.sendFrame(proto.FrameVerdict, vb)
		}
		if d.Act && !s.endStdin(d) {
			s.act(d, obs)
		}
	}
}

func (s *supervisor) mode() bgtasks.Mode {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.meta.Mode
}

// remoteBackend is the model asked when the local judge is unsure, or nil.
// A bad configuration, or no helper program to ask it through, is reported
// in the supervisor log and the local judge decides alone: a missing model
// never stops a task from running.
func (s *supervisor) remoteBackend(cfg watchdogconf.Watchdog) jev.Backend {
	dm := cfg.DecisionModel
	rc, ok, err := jev.ResolveRemote(dm.Source, jev.RemoteConfig{
		Backend: dm.Backend, URL: dm.URL, Model: dm.Model, APIKeyEnv: dm.APIKeyEnv, Timeout: dm.Timeout(),
	}, os.Getenv)
	if err == nil && !ok {
		return nil
	}
	var helper string
	if err == nil {
		helper, err = askHelper()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "hangdog supervisor: decision model:", err)
		return nil
	}
	return askproc.New(helper, rc)
}

// helperName is the program, installed next to hangdog-supervisor, that
// asks remote models for it.
const helperName = "hangdog"

// askHelper is the program that asks a remote model on this supervisor's
// behalf (jev/askproc), which keeps the HTTP client out of the supervisor:
// the hangdog beside hangdog-supervisor, or, for a hangdog re-executed as
// its own supervisor, the same binary.
func askHelper() (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the hangdog binary that asks the remote model: %w", err)
	}
	if filepath.Base(self) != spawn.BinaryName {
		return self, nil
	}
	helper, err := spawn.Beside(helperName)
	if err != nil {
		return "", fmt.Errorf("cannot ask the remote model: %w; install %s next to %s (make install); judging locally meanwhile", err, helperName, spawn.BinaryName)
	}
	return helper, nil
}

// openCheckLog opens the debug log for appending when asked for; each line
// is written with one O_APPEND write, so many supervisors share it safely.
func (s *supervisor) openCheckLog(cfg watchdogconf.Watchdog) *os.File {
	if !cfg.Debug && os.Getenv(DebugEnv) != "1" {
		return nil
	}
	if err := os.MkdirAll(s.reg.LogsDir(), 0o700); err != nil {
		fmt.Fprintln(os.Stderr, "hangdog supervisor: debug log:", err)
		return nil
	}
	f, err := os.OpenFile(s.reg.CheckLogPath(), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, "hangdog supervisor: debug log:", err)
		return nil
	}
	return f
}

// detachWait is what a watchdog detach says the run waits for: its input
// kind, or "service" for a server the watchdog found up and quiet.
func detachWait(d watchdog.Decision) string {
	if d.InputKind != "" {
		return d.InputKind
	}
	if d.Trigger == watchdog.TriggerService {
		return "service"
	}
	return ""
}

// act applies a decision the watchdog made.
func (s *supervisor) act(d watchdog.Decision, obs watchdog.Observation) {
	switch d.Action {
	case watchdog.ActionBackground:
		if _, err := s.detach("watchdog: "+d.Reason, detachWait(d)); err != nil {
			fmt.Fprintln(os.Stderr, "hangdog supervisor: watchdog detach:", err)
		}
	case watchdog.ActionKill:
		msg := watchdog.KillMessage(obs.Now.Sub(s.meta.Started), d, obs.Output.SinceOutput)
		go s.kill(syscall.SIGTERM, defaultGrace, msg)
	case watchdog.ActionWarn:
		msg := "watchdog warning for " + s.meta.ID + ": " + d.Reason
		s.sendFrame(proto.FrameWarning, []byte(msg))
		ev := s.meta.Event(bgtasks.EventWarning)
		ev.DurationMS, ev.Reason = obs.Now.Sub(s.meta.Started).Milliseconds(), d.Reason
		if _, err := s.reg.AppendEvent(ev); err != nil {
			fmt.Fprintln(os.Stderr, "hangdog supervisor:", err)
		}
	}
}
