package jev

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// uncertain is a state the local judge is not sure of: silent and idle for
// three minutes.
func uncertain() State { return idle("./deploy.sh", 4*time.Minute, 3*time.Minute) }

func TestJudgeAsksRemoteOncePerState(t *testing.T) {
	rec := newRecorder(t, func(w http.ResponseWriter, _ *http.Request, _ int) { writeJSON(w, 200, goodAnswers()) })
	j := NewJudge(nil, typesafeBackend(t, rec.srv.URL, 5*time.Second))
	ctx := context.Background()

	st := uncertain()
	v, err := j.Ask(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if !v.RemoteAsked || v.RemoteErr != nil || v.Status.Backend != BackendTypesafe || v.Status.Choice != Stuck {
		t.Fatalf("first verdict = %+v", v)
	}

	st.Elapsed += 5 * time.Second // same buckets: unchanged
	st.SinceOutput += 5 * time.Second
	v, err = j.Ask(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if v.RemoteAsked || rec.hits.Load() != 1 {
		t.Errorf("unchanged state asked the remote again (%d requests)", rec.hits.Load())
	}
	if v.Status.Backend != BackendTypesafe {
		t.Errorf("unchanged state dropped the remote's last answer: %+v", v.Status)
	}

	st.ForegroundComm = "ssh" // changed
	if v, _ = j.Ask(ctx, st); !v.RemoteAsked || rec.hits.Load() != 2 {
		t.Errorf("changed state did not ask the remote (%d requests)", rec.hits.Load())
	}
}

func TestJudgeFallsBackToLocalOnAbstention(t *testing.T) {
	rec := newRecorder(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		writeJSON(w, 200, `{"answers":[
			{"id":"status","abstain":true},
			{"id":"persistent","value":0.2,"evidence":["remote"]},
			{"id":"stop","abstain":true},
			{"id":"expect","abstain":true}]}`)
	})
	j := NewJudge(NewLocal(), typesafeBackend(t, rec.srv.URL, 5*time.Second))
	v, err := j.Ask(context.Background(), uncertain())
	if err != nil {
		t.Fatal(err)
	}
	if !v.RemoteAsked || v.Status.Backend != LocalName || v.Status.Choice != Stuck || v.Stop.Backend != LocalName || v.Expect.Backend != LocalName {
		t.Errorf("abstained answers did not fall back to local: %+v", v)
	}
	if v.Persistent.Backend != BackendTypesafe {
		t.Errorf("the remote's one answer was dropped: %+v", v.Persistent)
	}
}

func TestJudgeFallsBackToLocalOnFailure(t *testing.T) {
	rec := newRecorder(t, func(w http.ResponseWriter, _ *http.Request, _ int) { writeJSON(w, 503, "down") })
	r, err := newRemote(RemoteConfig{Backend: BackendTypesafe, URL: rec.srv.URL, Retries: -1}, envWith("TYPESAFE_API_KEY", testKey))
	if err != nil {
		t.Fatal(err)
	}
	j := NewJudge(nil, r)
	v, err := j.Ask(context.Background(), uncertain())
	if err != nil {
		t.Fatal(err)
	}
	if v.RemoteErr == nil || !strings.Contains(v.RemoteErr.Error(), "503") {
		t.Errorf("RemoteErr = %v, want the 503", v.RemoteErr)
	}
	for _, a := range []Answer{v.Status, v.Persistent, v.Stop, v.Expect} {
		if a.Abstain || a.Backend != LocalName {
			t.Errorf("answer %s = %+v, want the local one", a.ID, a)
		}
	}
	// The failure is not retried for the same state.
	if v, _ = j.Ask(context.Background(), uncertain()); v.RemoteAsked || rec.hits.Load() != 1 {
		t.Errorf("a failed remote was asked again for the same state")
	}
}

func TestJudgeDoesNotAskRemoteWhenCertain(t *testing.T) {
	rec := newRecorder(t, func(w http.ResponseWriter, _ *http.Request, _ int) { writeJSON(w, 200, goodAnswers()) })
	j := NewJudge(nil, typesafeBackend(t, rec.srv.URL, 5*time.Second))
	st := idle("npm init", time.Minute, time.Minute)
	st.ReadingTTY, st.TTYMode, st.LastLine = true, "line", "package name: (app) "
	v, err := j.Ask(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	if v.RemoteAsked || rec.hits.Load() != 0 || v.Status.Choice != Waiting {
		t.Errorf("certain local verdict asked the remote: %+v", v)
	}
}

// The remote may not call stuck what hangdog's rules say is not.
func TestJudgeRefusesRemoteStuckForPersonAtTerminal(t *testing.T) {
	rec := newRecorder(t, func(w http.ResponseWriter, _ *http.Request, _ int) { writeJSON(w, 200, goodAnswers()) })
	j := NewJudge(nil, typesafeBackend(t, rec.srv.URL, 5*time.Second))
	st := idle("./wizard", 10*time.Minute, 10*time.Minute)
	st.Interactive, st.ReadingTTY = true, true // no prompt: local is not certain
	v, err := j.Ask(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	if !v.RemoteAsked || v.Status.Choice != Waiting || v.Status.Backend != LocalName {
		t.Errorf("remote stuck accepted for a person at the terminal: %+v", v.Status)
	}
}

func TestJudgeWithoutRemote(t *testing.T) {
	v, err := NewJudge(nil, nil).Ask(context.Background(), uncertain())
	if err != nil || v.RemoteAsked || v.Status.Backend != LocalName {
		t.Fatalf("local-only verdict = %+v, %v", v, err)
	}
}

func TestFingerprint(t *testing.T) {
	base := sampleState()
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
