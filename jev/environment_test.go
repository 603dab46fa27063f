package jev

import (
	"strings"
	"testing"
	"time"
)

func envWith(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

const testKey = "ts-live-7d1e9c0b5a4f3e2d1c0b9a8f7e6d5c4b"

func TestResolveRemoteNone(t *testing.T) {
	cfg, ok, err := ResolveRemote("inherit", RemoteConfig{}, envWith())
	if err != nil || ok {
		t.Fatalf("inherit with an empty environment = %+v, %v, %v; want no remote", cfg, ok, err)
	}
	for _, source := range []string{"local", "none", "off"} {
		if cfg, ok, err := ResolveRemote(source, RemoteConfig{Backend: BackendTypesafe}, envWith("TYPESAFE_API_KEY", testKey)); err != nil || ok {
			t.Errorf("source %q = %+v, %v, %v; want no remote", source, cfg, ok, err)
		}
	}
	// The settings' default backend under "custom" is the local judge.
	if cfg, ok, err := ResolveRemote("custom", RemoteConfig{Backend: "local"}, envWith("TYPESAFE_API_KEY", testKey)); err != nil || ok {
		t.Errorf("custom with backend local = %+v, %v, %v; want no remote", cfg, ok, err)
	}
}

func TestResolveRemoteInheritTypesafe(t *testing.T) {
	env := envWith("TYPESAFE_API_KEY", testKey, "HANGDOG_OPENAI_BASE_URL", "http://localhost:1/v1")
	cfg, ok, err := ResolveRemote("inherit", RemoteConfig{URL: "http://127.0.0.1:9/decide", Timeout: time.Second}, env)
	if err != nil || !ok {
		t.Fatalf("inherit with TYPESAFE_API_KEY = %v, %v; want the typesafe backend", ok, err)
	}
	want := RemoteConfig{Backend: BackendTypesafe, URL: "http://127.0.0.1:9/decide", APIKeyEnv: "TYPESAFE_API_KEY", Timeout: time.Second, Retries: DefaultRetries}
	if cfg != want {
		t.Errorf("resolved %+v, want %+v", cfg, want)
	}
}

func TestResolveRemoteInheritOpenAI(t *testing.T) {
	const base = "http://127.0.0.1:11434/v1"
	tests := []struct {
		name       string
		keyEnv     string
		env        func(string) string
		wantKeyEnv string
	}{
		{"no key: local server", "", envWith("HANGDOG_OPENAI_BASE_URL", base, "HANGDOG_OPENAI_MODEL", "qwen2.5"), ""},
		{"OPENAI_API_KEY", "", envWith("HANGDOG_OPENAI_BASE_URL", base, "HANGDOG_OPENAI_MODEL", "qwen2.5", "OPENAI_API_KEY", "k1"), "OPENAI_API_KEY"},
		{"named variable wins", "GROQ_KEY", envWith("HANGDOG_OPENAI_BASE_URL", base, "HANGDOG_OPENAI_MODEL", "qwen2.5", "OPENAI_API_KEY", "k1", "GROQ_KEY", "k2"), "GROQ_KEY"},
	}
	for _, tt := range tests {
		cfg, ok, err := ResolveRemote("inherit", RemoteConfig{APIKeyEnv: tt.keyEnv, Model: "ignored", Timeout: time.Second}, tt.env)
		if err != nil || !ok {
			t.Fatalf("%s: ResolveRemote = %v, %v", tt.name, ok, err)
		}
		want := RemoteConfig{Backend: BackendOpenAI, URL: base, Model: "qwen2.5", APIKeyEnv: tt.wantKeyEnv, Timeout: time.Second, Retries: DefaultRetries}
		if cfg != want {
			t.Errorf("%s: resolved %+v, want %+v", tt.name, cfg, want)
		}
	}
}

func TestResolveRemoteErrors(t *testing.T) {
	if _, _, err := ResolveRemote("inherit", RemoteConfig{}, envWith("HANGDOG_OPENAI_BASE_URL", "http://localhost:11434/v1")); err == nil || !strings.Contains(err.Error(), "Model") || !strings.Contains(err.Error(), "HANGDOG_OPENAI_BASE_URL is set") {
		t.Errorf("inherit openai with no model: err %v, want one naming Model and the variable", err)
	}
	if _, _, err := ResolveRemote("inherit", RemoteConfig{URL: "ftp://x"}, envWith("TYPESAFE_API_KEY", testKey)); err == nil || !strings.Contains(err.Error(), "TYPESAFE_API_KEY is set") || strings.Contains(err.Error(), testKey) {
		t.Errorf("inherit typesafe with a bad URL: err %v, want one naming the variable, not the key", err)
	}
	if _, _, err := ResolveRemote("custom", RemoteConfig{Backend: "typesafe", APIKeyEnv: "NOPE"}, envWith()); err == nil || !strings.Contains(err.Error(), "NOPE") {
		t.Errorf("custom typesafe with no key: err %v", err)
	}
	if _, _, err := ResolveRemote("cloud", RemoteConfig{}, envWith()); err == nil || !strings.Contains(err.Error(), "inherit") {
		t.Errorf("unknown source: err %v", err)
	}
	cfg, ok, err := ResolveRemote("custom", RemoteConfig{Backend: BackendOpenAI, URL: "http://localhost:11434", Model: "m"}, envWith())
	if err != nil || !ok || cfg.Backend != BackendOpenAI || cfg.URL != "http://localhost:11434" {
		t.Errorf("custom openai = %+v, %v, %v", cfg, ok, err)
	}
}

// The resolved configuration is complete, and resolving it again changes
// nothing: what a helper process checks once more is what was checked here.
func TestResolveRemoteDefaults(t *testing.T) {
	env := envWith("TYPESAFE_API_KEY", testKey)
	for _, in := range []RemoteConfig{
		{Backend: BackendTypesafe},
		{Backend: BackendTypesafe, Retries: -1, Timeout: 3 * time.Second, Model: " jev-1 "},
		{Backend: BackendOpenAI, URL: " http://localhost:8080/v1 ", Model: "m", APIKeyEnv: " MY_KEY "},
	} {
		cfg, ok, err := ResolveRemote("custom", in, env)
		if err != nil || !ok {
			t.Fatalf("ResolveRemote(%+v) = %v, %v", in, ok, err)
		}
		if cfg.URL == "" || cfg.Timeout <= 0 || cfg.Retries == 0 || strings.TrimSpace(cfg.Model) != cfg.Model || strings.TrimSpace(cfg.APIKeyEnv) != cfg.APIKeyEnv {
			t.Errorf("ResolveRemote(%+v) = %+v: defaults missing or spaces kept", in, cfg)
		}
		again, _, err := ResolveRemote("custom", cfg, env)
		if err != nil || again != cfg {
			t.Errorf("resolving %+v again gave %+v, %v", cfg, again, err)
		}
	}
	cfg, _, _ := ResolveRemote("custom", RemoteConfig{Backend: BackendTypesafe}, env)
	if cfg.URL != DefaultTypesafeURL || cfg.APIKeyEnv != DefaultTypesafeKeyEnv || cfg.Timeout != DefaultTimeout || cfg.Retries != DefaultRetries {
		t.Errorf("typesafe defaults = %+v", cfg)
	}
	if cfg, _, _ := ResolveRemote("custom", RemoteConfig{Backend: BackendTypesafe, Retries: -1}, env); cfg.Retries >= 0 {
		t.Errorf("Retries -1 resolved to %d, which means retrying", cfg.Retries)
	}
}
