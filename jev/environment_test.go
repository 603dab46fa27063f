package jev

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestFromEnvironmentInheritNothing(t *testing.T) {
	b, err := FromEnvironment("inherit", RemoteConfig{}, envWith())
	if err != nil || b != nil {
		t.Fatalf("inherit with an empty environment = %v, %v; want nil, nil", b, err)
	}
	for _, source := range []string{"local", "none", "off"} {
		b, err := FromEnvironment(source, RemoteConfig{Backend: BackendTypesafe}, envWith("TYPESAFE_API_KEY", testKey))
		if err != nil || b != nil {
			t.Errorf("source %q = %v, %v; want nil, nil", source, b, err)
		}
	}
}

func TestFromEnvironmentInheritTypesafe(t *testing.T) {
	rec := newRecorder(t, func(w http.ResponseWriter, _ *http.Request, _ int) { writeJSON(w, 200, goodAnswers()) })
	env := envWith("TYPESAFE_API_KEY", testKey, "HANGDOG_OPENAI_BASE_URL", "http://localhost:1/v1")
	b, err := FromEnvironment("inherit", RemoteConfig{URL: rec.srv.URL, Timeout: time.Second}, env)
	if err != nil || b == nil || b.Name() != BackendTypesafe {
		t.Fatalf("inherit with TYPESAFE_API_KEY = %v, %v; want the typesafe backend", b, err)
	}
	if _, err := b.Ask(context.Background(), sampleState(), Questions()); err != nil {
		t.Fatal(err)
	}
	if got := rec.headers[0].Get("Authorization"); got != "Bearer "+testKey {
		t.Errorf("Authorization = %q", got)
	}
}

func TestFromEnvironmentInheritOpenAI(t *testing.T) {
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
		b, err := FromEnvironment("inherit", RemoteConfig{APIKeyEnv: tt.keyEnv, Timeout: time.Second}, tt.env)
		if err != nil || b == nil || b.Name() != BackendOpenAI {
			t.Fatalf("%s: FromEnvironment = %v, %v", tt.name, b, err)
		}
		if _, err := b.Ask(context.Background(), sampleState(), Questions()); err != nil {
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

func TestFromEnvironmentErrors(t *testing.T) {
	if _, err := FromEnvironment("inherit", RemoteConfig{}, envWith("HANGDOG_OPENAI_BASE_URL", "http://localhost:11434/v1")); err == nil || !strings.Contains(err.Error(), "Model") {
		t.Errorf("inherit openai with no model: err %v, want one naming Model", err)
	}
	if _, err := FromEnvironment("custom", RemoteConfig{Backend: "typesafe", APIKeyEnv: "NOPE"}, envWith()); err == nil || !strings.Contains(err.Error(), "NOPE") {
		t.Errorf("custom typesafe with no key: err %v", err)
	}
	if _, err := FromEnvironment("cloud", RemoteConfig{}, envWith()); err == nil || !strings.Contains(err.Error(), "inherit") {
		t.Errorf("unknown source: err %v", err)
	}
	b, err := FromEnvironment("custom", RemoteConfig{Backend: BackendOpenAI, URL: "http://localhost:11434", Model: "m"}, envWith())
	if err != nil || b == nil || b.Name() != BackendOpenAI {
		t.Errorf("custom openai = %v, %v", b, err)
	}
}
