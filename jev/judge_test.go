package jev

import (
	"context"
	"testing"
	"time"
)

// uncertain is a state the local judge is not sure of: silent and idle for
// three minutes.
func uncertain() State { return idle("./deploy.sh", 4*time.Minute, 3*time.Minute) }

func TestJudgeWithoutRemote(t *testing.T) {
	v, err := NewJudge(nil, nil).Ask(context.Background(), uncertain())
	if err != nil || v.RemoteAsked || v.Status.Backend != LocalName {
		t.Fatalf("local-only verdict = %+v, %v", v, err)
	}
}

func TestFingerprint(t *testing.T) {
	base := idle("./deploy.sh --env prod", 10*time.Minute, 6*time.Minute)
	base.Tail = []string{"uploading artifacts", "waiting for health check"}
	same := base
	same.Elapsed += 3 * time.Second
	same.SinceOutput += 3 * time.Second
	same.CPUPercent = 0.4
	same.Listening = nil
	if base.Fingerprint() != same.Fingerprint() {
		t.Error("a few seconds more of the same changed the fingerprint")
	}
	listA, listB := base, base
	listA.Listening = []string{"127.0.0.1:3000", "[::1]:3000"}
	listB.Listening = []string{"[::1]:3000", "127.0.0.1:3000"}
	if listA.Fingerprint() != listB.Fingerprint() {
		t.Error("the order of listening sockets changed the fingerprint")
	}
	changes := map[string]func(*State){
		"command":     func(s *State) { s.Command = "./other" },
		"silence":     func(s *State) { s.SinceOutput = time.Hour },
		"new output":  func(s *State) { s.NewOutputBytes = 10 },
		"cpu":         func(s *State) { s.CPUPercent = 90 },
		"tty":         func(s *State) { s.ReadingTTY = true },
		"prompt":      func(s *State) { s.LastLine = "Continue? " },
		"listening":   func(s *State) { s.Listening = []string{"0.0.0.0:80"} },
		"interactive": func(s *State) { s.Interactive = true },
		"incomplete":  func(s *State) { s.SampleComplete = false },
		"repetition":  func(s *State) { s.Repetition = 0.9 },
	}
	for name, change := range changes {
		st := base
		change(&st)
		if st.Fingerprint() == base.Fingerprint() {
			t.Errorf("changing %s left the fingerprint unchanged", name)
		}
	}
}
