package remote

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hangdog/hangdog/jev"
)

// A key of a shape Redact does not know, printed by the command itself
// (env, echo $KEY), is scrubbed from the request by its own value.
func TestRequestNeverCarriesTheConfiguredKey(t *testing.T) {
	const key = "zz9-plural-Z-alpha-0042"
	rec := newRecorder(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		writeJSON(w, 200, goodAnswers())
	})
	c, err := newClient(jev.RemoteConfig{Backend: jev.BackendTypesafe, URL: rec.srv.URL, Model: "jev-1", APIKeyEnv: "ODD_KEY", Timeout: 5 * time.Second}, envWith("ODD_KEY", key))
	if err != nil {
		t.Fatal(err)
	}
	st := sampleState()
	st.Command = "echo " + key + " | ./deploy"
	st.Tail = []string{"ODD=" + key, "the key is " + key}
	st.LastLine = key
	c.Ask(context.Background(), st, jev.Questions())
	if body := string(rec.body(0)); strings.Contains(body, key) {
		t.Fatalf("the request carried the configured key:\n%.600s", body)
	}
}
