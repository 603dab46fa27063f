package remote

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hangdog/hangdog/jev"
)

// fromEnvironment builds the backend jev.ResolveRemote picks, as the helper
// process does, reading the key from env.
func fromEnvironment(t *testing.T, source string, cfg jev.RemoteConfig, env func(string) string) *client {
	t.Helper()
	resolved, ok, err := jev.ResolveRemote(source, cfg, env)
	if err != nil || !ok {
		t.Fatalf("ResolveRemote = %v, %v; want a remote backend", ok, err)
	}
	c, err := newClient(resolved, env)
	if err != nil {
		t.Fatalf("newClient(%+v): %v", resolved, err)
	}
	return c
}

func TestInheritedTypesafeSendsTheKey(t *testing.T) {
	rec := newRecorder(t, func(w http.ResponseWriter, _ *http.Request, _ int) { writeJSON(w, 200, goodAnswers()) })
	env := envWith("TYPESAFE_API_KEY", testKey, "HANGDOG_OPENAI_BASE_URL", "http://localhost:1/v1")
	b := fromEnvironment(t, "inherit", jev.RemoteConfig{URL: rec.srv.URL, Timeout: time.Second}, env)
	if b.Name() != jev.BackendTypesafe {
		t.Fatalf("inherit with TYPESAFE_API_KEY gave %s; want the typesafe backend", b.Name())
	}
	if _, err := b.Ask(context.Background(), sampleState(), jev.Questions()); err != nil {
		t.Fatal(err)
	}
	if got := rec.headers[0].Get("Authorization"); got != "Bearer "+testKey {
		t.Errorf("Authorization = %q", got)
	}
}

func TestInheritedOpenAISendsKeyAndModel(t *testing.T) {
	rec := newRecorder(t, func(w http.ResponseWriter, _ *http.Request, _ int) { writeJSON(w, 200, chatReply(goodChatContent)) })
	tests := []struct {
		name     string
		keyEnv   string
		env      func(string) string
		wantAuth string
	}{
		{"no key: local server", "", envWith("HANGDOG_OPENAI_BASE_URL", rec.srv.URL+"/v1", "HANGDOG_OPENAI_MODEL", "qwen2.5"), ""},
		{"OPENAI_API_KEY", "", envWith("HANGDOG_OPENAI_BASE_URL", rec.srv.URL+"/v1", "HANGDOG_OPENAI_MODEL", "qwen2.5", "OPENAI_API_KEY", "k1"), "Bearer k1"},
		{"named variable wins", "GROQ_KEY", envWith("HANGDOG_OPENAI_BASE_URL", rec.srv.URL+"/v1", "HANGDOG_OPENAI_MODEL", "qwen2.5", "OPENAI_API_KEY", "k1", "GROQ_KEY", "k2"), "Bearer k2"},
	}
	for i, tt := range tests {
		b := fromEnvironment(t, "inherit", jev.RemoteConfig{APIKeyEnv: tt.keyEnv, Timeout: time.Second}, tt.env)
		if b.Name() != jev.BackendOpenAI {
			t.Fatalf("%s: backend %s, want openai", tt.name, b.Name())
		}
		if _, err := b.Ask(context.Background(), sampleState(), jev.Questions()); err != nil {
			t.Fatalf("%s: Ask: %v", tt.name, err)
		}
		if got := rec.headers[i].Get("Authorization"); got != tt.wantAuth {
			t.Errorf("%s: Authorization = %q, want %q", tt.name, got, tt.wantAuth)
		}
		if !strings.Contains(string(rec.body(i)), `"model":"qwen2.5"`) {
			t.Errorf("%s: model not sent: %s", tt.name, rec.body(i))
		}
	}
}

func TestNewRejectsTheLocalJudge(t *testing.T) {
	if b, err := New(jev.RemoteConfig{Backend: jev.LocalName}); err == nil || !strings.Contains(err.Error(), "local judge") {
		t.Errorf("New(local) = %v, %v; want an error naming the local judge", b, err)
	}
}
