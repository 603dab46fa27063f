package jev

import (
	"testing"
	"time"
)

func TestAdvancingNumbers(t *testing.T) {
	cases := []struct {
		name string
		tail []string
		want bool
	}{
		{"ping's sequence number grows", []string{
			"64 bytes from 127.0.0.1: icmp_seq=1 ttl=64 time=0.051 ms",
			"64 bytes from 127.0.0.1: icmp_seq=2 ttl=64 time=0.044 ms",
			"64 bytes from 127.0.0.1: icmp_seq=3 ttl=64 time=0.090 ms",
			"64 bytes from 127.0.0.1: icmp_seq=4 ttl=64 time=0.032 ms"}, true},
		{"a counter towards a total", []string{"[3/16] uploading shard", "[4/16] uploading shard", "[5/16] uploading shard"}, true},
		{"a size that grows", []string{"downloaded 3.2 MB of 51.2 MB (3.2 MB/s)", "downloaded 6.4 MB of 51.2 MB (3.2 MB/s)", "downloaded 9.6 MB of 51.2 MB (3.2 MB/s)"}, true},
		{"nothing changes", []string{"0/3 replicas ready", "0/3 replicas ready", "0/3 replicas ready"}, false},
		{"numbers change but none grows", []string{"temp 21.5", "temp 21.3", "temp 21.6", "temp 21.4"}, false},
		{"a counter on a failure is attempts, not progress", []string{
			"attempt 1: could not reach registry.local:5000 (connection refused), retrying",
			"attempt 2: could not reach registry.local:5000 (connection refused), retrying",
			"attempt 3: could not reach registry.local:5000 (connection refused), retrying"}, false},
		{"too few lines", []string{"[1/9] a", "[2/9] a"}, false},
	}
	for _, tc := range cases {
		if _, got := advancingNumbers(tc.tail); got != tc.want {
			t.Errorf("%s: advancingNumbers = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func quietState(cmd string) State {
	return State{Command: cmd, Elapsed: 9 * time.Second, SinceOutput: 9 * time.Second, SampleComplete: true, TimerSleep: true, Procs: 2}
}

func TestQuietRetryLoopIsLooping(t *testing.T) {
	st := quietState("while ! nc -z 127.0.0.1 5432; do sleep 1; done")
	st.Repeats, st.Repeated = 3, "sleep 1"
	if v := judgeLocally(st); v.Status.Choice != Looping {
		t.Fatalf("a quiet retry loop judged %s: %v", v.Status.Choice, v.Status.Evidence)
	}
	// One start is not a loop yet, and a sleep pending is a timer.
	st.Repeats = 1
	if v := judgeLocally(st); v.Status.Choice != Progressing {
		t.Errorf("one try judged %s: %v", v.Status.Choice, v.Status.Evidence)
	}
	// Repeats with no polling loop in sight: a script's silent work.
	st = quietState("./fetch-all.sh")
	st.Repeats, st.Repeated = 40, "curl -s http://x/"
	if v := judgeLocally(st); v.Status.Choice == Looping {
		t.Errorf("repeats alone judged looping: %v", v.Status.Evidence)
	}
	// A bounded loop repeats too, and ends by itself.
	st = quietState("for i in 1 2 3 4 5 6; do nc -z 127.0.0.1 1 && break; sleep 2; done")
	st.Repeats, st.Repeated = 6, "sleep 2"
	if v := judgeLocally(st); v.Status.Choice == Looping {
		t.Errorf("a loop of six tries judged looping: %v", v.Status.Evidence)
	}
}

func TestRunningProcessWidensExpect(t *testing.T) {
	st := quietState("echo 'waiting for the deploy lock...'; flock -w 45 lk echo ok")
	st.TimerSleep = false
	quick := judgeLocally(State{Command: "echo hi", SampleComplete: true})
	if quick.Expect.Choice != ExpectSeconds {
		t.Fatalf("echo expected %s", quick.Expect.Choice)
	}
	st.Command = "echo 'waiting…'; ./deploy.sh"
	st.Running = [][]string{{"/opt/bin/wait-for-lock", "--forever"}}
	v := judgeLocally(st)
	if v.Expect.Choice == ExpectSeconds {
		t.Errorf("an unknown program running now still expected in seconds: %v", v.Expect.Evidence)
	}
	st.Command = "echo start"
	st.Running = [][]string{{"echo", "start"}}
	if v := judgeLocally(st); v.Expect.Choice != ExpectSeconds {
		t.Errorf("echo running judged %s", v.Expect.Choice)
	}
}

// A read with its own timeout gives up by itself: no reason to stop waiting
// before it has passed; after, it is a wait for input like any other.
func TestBoundedReadIsNotAReasonToStop(t *testing.T) {
	st := State{Command: "read -t 14 -p 'Proceed? [Y/n] ' a", SampleComplete: true, ReadingTTY: true, TTYMode: "line",
		LastLine: "Proceed? [Y/n] ", SinceOutput: 6 * time.Second, Elapsed: 6 * time.Second, ReadTimeout: 14 * time.Second}
	if v := judgeLocally(st); v.Stop.Value >= 0.5 {
		t.Errorf("stop %.2f for a read that gives up in 8 s: %v", v.Stop.Value, v.Stop.Evidence)
	}
	st.SinceOutput, st.Elapsed = 20*time.Second, 20*time.Second
	if v := judgeLocally(st); v.Stop.Value < 0.9 {
		t.Errorf("stop %.2f after the read's timeout passed", v.Stop.Value)
	}
	st.ReadTimeout, st.SinceOutput = 0, 6*time.Second
	if v := judgeLocally(st); v.Stop.Value < 0.9 {
		t.Errorf("stop %.2f for a read with no timeout", v.Stop.Value)
	}
}
