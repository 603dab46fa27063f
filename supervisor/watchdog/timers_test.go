package watchdog

import (
	"testing"
	"time"

	"github.com/hangdog/hangdog/supervisor/sampler"
)

// A bound is a deadline that approaches: the same call pending across
// samples vetoes until it ends; a wait re-armed as the last one ends is a
// poll; a deadline beyond the horizon says nothing about now.
func TestTimersApproachingPollingFar(t *testing.T) {
	t0 := time.Date(2026, 3, 4, 12, 0, 0, 0, time.UTC)
	// The processes of a sample are those of its timers, as in a real one.
	sample := func(at time.Duration, ts ...sampler.Timer) sampler.Tree {
		t := sampler.Tree{Time: t0.Add(at), TimerSleep: true, Timers: ts}
		for _, tm := range ts {
			t.Procs = append(t.Procs, sampler.Proc{PID: tm.PID, Comm: tm.Comm})
		}
		return t
	}
	type step struct {
		at      time.Duration
		timers  []sampler.Timer
		pending bool
	}
	sleep := func(pid int, d time.Duration) sampler.Timer {
		return sampler.Timer{PID: pid, TID: pid, Comm: "sleep", Syscall: "clock_nanosleep", Timeout: d}
	}
	poll := func(d time.Duration) sampler.Timer {
		return sampler.Timer{PID: 7, TID: 8, Comm: "node", Syscall: "epoll_pwait", Timeout: d}
	}
	abs := func(left time.Duration) sampler.Timer {
		return sampler.Timer{PID: 9, TID: 9, Comm: "python3", Syscall: "futex", Timeout: left, Absolute: true}
	}
	for _, c := range []struct {
		name  string
		steps []step
	}{
		{"one sleep 14 pending until it ends", []step{
			{1 * time.Second, []sampler.Timer{sleep(10, 14*time.Second)}, true},
			{4 * time.Second, []sampler.Timer{sleep(10, 14*time.Second)}, true},
			{12 * time.Second, []sampler.Timer{sleep(10, 14*time.Second)}, true},
		}},
		{"a shell loop's sleep 1.5, a new process each time", []step{
			{1 * time.Second, []sampler.Timer{sleep(10, 1500*time.Millisecond)}, true},
			{3 * time.Second, []sampler.Timer{sleep(11, 1500*time.Millisecond)}, false},
			{5 * time.Second, []sampler.Timer{sleep(12, 1500*time.Millisecond)}, false},
		}},
		{"a shell loop's sleep 1 seen a second later, a moment before the last one's deadline", []step{
			{1 * time.Second, []sampler.Timer{sleep(10, time.Second)}, true},
			{1990 * time.Millisecond, []sampler.Timer{sleep(11, time.Second)}, false},
			{2980 * time.Millisecond, []sampler.Timer{sleep(12, time.Second)}, false},
		}},
		{"two sleeps side by side both approach", []step{
			{1 * time.Second, []sampler.Timer{sleep(10, 5*time.Second), sleep(11, 5*time.Second)}, true},
			{2 * time.Second, []sampler.Timer{sleep(10, 5*time.Second), sleep(11, 5*time.Second)}, true},
		}},
		{"an event loop re-arming a 1 s timer", []step{
			{1 * time.Second, []sampler.Timer{poll(900 * time.Millisecond)}, true},
			{2500 * time.Millisecond, []sampler.Timer{poll(700 * time.Millisecond)}, false},
			{4 * time.Second, []sampler.Timer{poll(1000 * time.Millisecond)}, false},
		}},
		{"an event loop woken by a nearer timer, then waiting out a request's 12 s timeout", []step{
			{1 * time.Second, []sampler.Timer{poll(5 * time.Second)}, true},
			{3 * time.Second, []sampler.Timer{poll(5 * time.Second)}, true},
			{6 * time.Second, []sampler.Timer{poll(7 * time.Second)}, true},
			{9 * time.Second, []sampler.Timer{poll(7 * time.Second)}, true},
		}},
		{"a loop that backs off to a long wait: the long wait approaches", []step{
			{1 * time.Second, []sampler.Timer{poll(500 * time.Millisecond)}, true},
			{3 * time.Second, []sampler.Timer{poll(20 * time.Second)}, true},
			{6 * time.Second, []sampler.Timer{poll(20 * time.Second)}, true},
		}},
		{"an absolute deadline that shrinks", []step{
			{1 * time.Second, []sampler.Timer{abs(13 * time.Second)}, true},
			{4 * time.Second, []sampler.Timer{abs(10 * time.Second)}, true},
		}},
		{"a re-armed 1 s sleep seen every second", []step{
			{1 * time.Second, []sampler.Timer{sleep(10, time.Second)}, true},
			{2 * time.Second, []sampler.Timer{sleep(10, time.Second)}, false},
			{3500 * time.Millisecond, []sampler.Timer{sleep(10, time.Second)}, false},
		}},
		{"a 1 s poll sampled once a second stays a poll", []step{
			{1 * time.Second, []sampler.Timer{poll(time.Second)}, true},
			{2100 * time.Millisecond, []sampler.Timer{poll(time.Second)}, false},
			{3050 * time.Millisecond, []sampler.Timer{poll(time.Second)}, false},
			{4100 * time.Millisecond, []sampler.Timer{poll(time.Second)}, false},
		}},
		{"a 10-minute alarm is beyond the horizon", []step{
			{1 * time.Second, []sampler.Timer{abs(599 * time.Second)}, false},
			{4 * time.Second, []sampler.Timer{abs(596 * time.Second)}, false},
		}},
		{"a timer whose timeout is unknown still vetoes", []step{
			{1 * time.Second, []sampler.Timer{sleep(10, 0)}, true},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var tw timerWatch
			for i, s := range c.steps {
				v := tw.judge(sample(s.at, s.timers...), t0.Add(s.at), minTimerHorizon)
				if v.pending() != s.pending {
					t.Errorf("step %d at %s: pending %v, want %v (approaching %d, polls %d, far %d)",
						i+1, s.at, v.pending(), s.pending, len(v.approaching), len(v.polls), len(v.far))
				}
			}
		})
	}
}
