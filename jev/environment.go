package jev

import (
	"fmt"
	"os"
	"strings"

	"github.com/hangdog/hangdog/internal/termtext"
)

// Environment variables ResolveRemote reads in "inherit" mode.
const (
	EnvTypesafeKey   = "TYPESAFE_API_KEY"
	EnvOpenAIBaseURL = "HANGDOG_OPENAI_BASE_URL"
	EnvOpenAIModel   = "HANGDOG_OPENAI_MODEL"
	EnvOpenAIKey     = "OPENAI_API_KEY"
)

// ResolveRemote picks the remote backend, if any, and checks its
// configuration; building it is left to package jev/remote (in this process)
// or jev/askproc (through a helper process), so that choosing one costs no
// HTTP client.
//
// source "inherit" uses a remote backend only where the environment sets one
// up: TYPESAFE_API_KEY set → typesafe (cfg.URL and cfg.Model still apply);
// else HANGDOG_OPENAI_BASE_URL set → openai with HANGDOG_OPENAI_MODEL (or
// cfg.Model) and the key from the variable cfg.APIKeyEnv names, or
// OPENAI_API_KEY, when set. Otherwise there is none: local judging only.
//
// source "custom" uses the backend cfg names ("local" meaning none). "local"
// (or "none", "off") uses none.
//
// It returns the configuration with its defaults filled in and true, or
// false when there is no remote backend. getenv nil means os.Getenv; it is
// read for the variables above and to check that a typesafe key is set.
func ResolveRemote(source string, cfg RemoteConfig, getenv func(string) string) (RemoteConfig, bool, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	switch strings.ToLower(strings.TrimSpace(source)) {
	case "inherit", "":
		return inherit(cfg, getenv)
	case "custom":
		if strings.EqualFold(strings.TrimSpace(cfg.Backend), LocalName) {
			return RemoteConfig{}, false, nil
		}
		return found(checkRemote(cfg, getenv))
	case "local", "none", "off":
		return RemoteConfig{}, false, nil
	}
	return RemoteConfig{}, false, fmt.Errorf("jev: decision source %q is unknown: use inherit, custom or local", termtext.Clip(Printable(source), 40))
}

func inherit(cfg RemoteConfig, getenv func(string) string) (RemoteConfig, bool, error) {
	if strings.TrimSpace(getenv(EnvTypesafeKey)) != "" {
		cfg.Backend, cfg.APIKeyEnv = BackendTypesafe, EnvTypesafeKey
		cfg, err := checkRemote(cfg, getenv)
		if err != nil {
			return RemoteConfig{}, false, fmt.Errorf("%s is set, but: %w", EnvTypesafeKey, err)
		}
		return cfg, true, nil
	}
	if base := strings.TrimSpace(getenv(EnvOpenAIBaseURL)); base != "" {
		cfg.Backend, cfg.URL = BackendOpenAI, base
		if m := strings.TrimSpace(getenv(EnvOpenAIModel)); m != "" {
			cfg.Model = m
		}
		if cfg.APIKeyEnv == "" && getenv(EnvOpenAIKey) != "" {
			cfg.APIKeyEnv = EnvOpenAIKey
		}
		cfg, err := checkRemote(cfg, getenv)
		if err != nil {
			return RemoteConfig{}, false, fmt.Errorf("%s is set, but: %w", EnvOpenAIBaseURL, err)
		}
		return cfg, true, nil
	}
	return RemoteConfig{}, false, nil
}

func found(cfg RemoteConfig, err error) (RemoteConfig, bool, error) {
	if err != nil {
		return RemoteConfig{}, false, err
	}
	return cfg, true, nil
}
