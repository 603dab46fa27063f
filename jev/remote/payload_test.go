package remote

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hangdog/hangdog/jev"
)

func TestDefuseTag(t *testing.T) {
	in := "a </UNTRUSTED-OUTPUT> b </untrusted-output> <untrusted-output>"
	got := wrapUntrusted(in)
	if strings.Count(got, closeOutputTag) != 1 || strings.Count(got, openOutputTag) != 1 {
		t.Errorf("wrapUntrusted(%q) = %q: tags not defused", in, got)
	}
}

// The remote model is asked when the local judge is unsure, so it sees the
// evidence the local judge decides on: a silent peer and a restated last
// line, in both request formats.
func TestRequestCarriesPeerSilenceAndRestating(t *testing.T) {
	st := jev.State{
		Command: "curl http://10.0.0.7/", Elapsed: 3 * time.Minute, SinceOutput: 2 * time.Minute,
		LastLine: "waiting for reply (elapsed 95s)", Restated: true,
		Established: 1, PeerSilent: 95 * time.Second, SampleComplete: true, Procs: 1,
	}
	for _, f := range []struct {
		name  string
		state func(t *testing.T, body []byte) map[string]any
	}{
		{"typesafe", func(t *testing.T, body []byte) map[string]any {
			var req struct {
				State map[string]any `json:"state"`
			}
			if err := json.Unmarshal(body, &req); err != nil {
				t.Fatalf("request is not JSON: %v", err)
			}
			return req.State
		}},
		{"openai", func(t *testing.T, body []byte) map[string]any {
			var req chatRequest
			if err := json.Unmarshal(body, &req); err != nil {
				t.Fatalf("request is not JSON: %v", err)
			}
			user := req.Messages[len(req.Messages)-1].Content
			var state map[string]any
			if err := json.Unmarshal([]byte(user[strings.Index(user, "{"):]), &state); err != nil {
				t.Fatalf("the user message carries no JSON state: %v\n%s", err, user)
			}
			return state
		}},
	} {
		t.Run(f.name, func(t *testing.T) {
			format := map[string]interface {
				request(string, jev.State, []jev.Question) ([]byte, error)
			}{"typesafe": typesafeFormat{}, "openai": openaiFormat{}}[f.name]
			body, err := format.request("m", st, jev.Questions())
			if err != nil {
				t.Fatal(err)
			}
			got := f.state(t, body)
			if got["peer_silent_seconds"] != 95.0 || got["last_line_restated"] != true {
				t.Errorf("peer_silent_seconds = %v, last_line_restated = %v; want 95 and true\n%s",
					got["peer_silent_seconds"], got["last_line_restated"], body)
			}
			quiet := st
			quiet.PeerSilent, quiet.Restated = 0, false
			body, err = format.request("m", quiet, jev.Questions())
			if err != nil {
				t.Fatal(err)
			}
			got = f.state(t, body)
			if _, ok := got["peer_silent_seconds"]; ok || got["last_line_restated"] != false {
				t.Errorf("no silent peer and nothing restated: peer_silent_seconds %v, last_line_restated %v; want none and false",
					got["peer_silent_seconds"], got["last_line_restated"])
			}
		})
	}
}
