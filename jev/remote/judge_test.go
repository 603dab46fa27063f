package remote

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hangdog/hangdog/jev"
)

// uncertain is a state the local judge is not sure of: silent and idle for
// three minutes.
func uncertain() jev.State { return idle("./deploy.sh", 4*time.Minute, 3*time.Minute) }

func TestJudgeAsksRemoteOncePerState(t *testing.T) {
	rec := newRecorder(t, func(w http.ResponseWriter, _ *http.Request, _ int) { writeJSON(w, 200, goodAnswers()) })
	j := jev.NewJudge(nil, typesafeBackend(t, rec.srv.URL, 5*time.Second))
	ctx := context.Background()

	st := uncertain()
	v, err := j.Ask(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if !v.RemoteAsked || v.RemoteErr != nil || v.Status.Backend != jev.BackendTypesafe || v.Status.Choice != jev.Stuck {
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
	if v.Status.Backend != jev.BackendTypesafe {
		t.Errorf("unchanged state dropped the remote's last answer: %+v", v.Status)
	}

	st.ForegroundComm = "ssh" // changed
	if v, _ = j.Ask(ctx, st); !v.RemoteAsked || rec.hits.Load() != 2 {
		t.Errorf("changed state did not ask the remote (%d requests)", rec.hits.Load())
	}

	st.Established = 1
	if v, _ = j.Ask(ctx, st); !v.RemoteAsked || rec.hits.Load() != 3 {
		t.Errorf("a connection did not ask the remote again (%d requests)", rec.hits.Load())
	}
	// A peer turned silent is new evidence, however short the silence,
	// and so is its silence growing.
	st.PeerSilent = 3 * time.Second
	if v, _ = j.Ask(ctx, st); !v.RemoteAsked || rec.hits.Load() != 4 {
		t.Errorf("a silent peer did not ask the remote again (%d requests)", rec.hits.Load())
	}
	st.PeerSilent = 3 * time.Minute
	if v, _ = j.Ask(ctx, st); !v.RemoteAsked || rec.hits.Load() != 5 {
		t.Errorf("a peer silent for minutes did not ask the remote again (%d requests)", rec.hits.Load())
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
	j := jev.NewJudge(jev.NewLocal(), typesafeBackend(t, rec.srv.URL, 5*time.Second))
	v, err := j.Ask(context.Background(), uncertain())
	if err != nil {
		t.Fatal(err)
	}
	if !v.RemoteAsked || v.Status.Backend != jev.LocalName || v.Status.Choice != jev.Stuck || v.Stop.Backend != jev.LocalName || v.Expect.Backend != jev.LocalName {
		t.Errorf("abstained answers did not fall back to local: %+v", v)
	}
	if v.Persistent.Backend != jev.BackendTypesafe {
		t.Errorf("the remote's one answer was dropped: %+v", v.Persistent)
	}
}

func TestJudgeFallsBackToLocalOnFailure(t *testing.T) {
	rec := newRecorder(t, func(w http.ResponseWriter, _ *http.Request, _ int) { writeJSON(w, 503, "down") })
	r, err := newClient(jev.RemoteConfig{Backend: jev.BackendTypesafe, URL: rec.srv.URL, Retries: -1}, envWith("TYPESAFE_API_KEY", testKey))
	if err != nil {
		t.Fatal(err)
	}
	j := jev.NewJudge(nil, r)
	v, err := j.Ask(context.Background(), uncertain())
	if err != nil {
		t.Fatal(err)
	}
	if v.RemoteErr == nil || !strings.Contains(v.RemoteErr.Error(), "503") {
		t.Errorf("RemoteErr = %v, want the 503", v.RemoteErr)
	}
	for _, a := range []jev.Answer{v.Status, v.Persistent, v.Stop, v.Expect} {
		if a.Abstain || a.Backend != jev.LocalName {
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
	j := jev.NewJudge(nil, typesafeBackend(t, rec.srv.URL, 5*time.Second))
	st := idle("npm init", time.Minute, time.Minute)
	st.ReadingTTY, st.TTYMode, st.LastLine = true, "line", "package name: (app) "
	v, err := j.Ask(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	if v.RemoteAsked || rec.hits.Load() != 0 || v.Status.Choice != jev.Waiting {
		t.Errorf("certain local verdict asked the remote: %+v", v)
	}
}

// The remote may not call stuck what hangdog's rules say is not.
func TestJudgeRefusesRemoteStuckForPersonAtTerminal(t *testing.T) {
	rec := newRecorder(t, func(w http.ResponseWriter, _ *http.Request, _ int) { writeJSON(w, 200, goodAnswers()) })
	j := jev.NewJudge(nil, typesafeBackend(t, rec.srv.URL, 5*time.Second))
	st := idle("./wizard", 10*time.Minute, 10*time.Minute)
	st.Interactive, st.ReadingTTY = true, true // no prompt: local is not certain
	v, err := j.Ask(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	if !v.RemoteAsked || v.Status.Choice != jev.Waiting || v.Status.Backend != jev.LocalName {
		t.Errorf("remote stuck accepted for a person at the terminal: %+v", v.Status)
	}
}
