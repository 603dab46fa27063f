package jev

import (
	"fmt"
	"github.com/hangdog/hangdog/internal/termtext"
	"os"
	"strings"
)

// Environment variables FromEnvironment reads in "inherit" mode.
const (
	EnvTypesafeKey   = "TYPESAFE_API_KEY"
	EnvOpenAIBaseURL = "HANGDOG_OPENAI_BASE_URL"
	EnvOpenAIModel   = "HANGDOG_OPENAI_MODEL"
	EnvOpenAIKey     = "OPENAI_API_KEY"
)

// FromEnvironment picks the remote backend, if any.
//
// source "inherit" uses a remote backend only where the environment sets one
// up: TYPESAFE_API_KEY set → typesafe (cfg.URL and cfg.Model still apply);
// else HANGDOG_OPENAI_BASE_URL set → openai with HANGDOG_OPENAI_MODEL (or
// cfg.Model) and the key from the variable cfg.APIKeyEnv names, or
// OPENAI_API_KEY, when set. Otherwise it returns nil: local judging only.
//
// source "custom" builds the backend cfg names. "local" (or "none", "off")
// returns nil. getenv nil means os.Getenv.
func FromEnvironment(source string, cfg RemoteConfig, getenv func(string) string) (Backend, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	switch strings.ToLower(strings.TrimSpace(source)) {
	case "inherit", "":
		return inherit(cfg, getenv)
	case "custom":
		r, err := newRemote(cfg, getenv)
		if err != nil {
			return nil, err
		}
		return r, nil
	case "local", "none", "off":
		return nil, nil
	}
	return nil, fmt.Errorf("jev: decision source %q is unknown: use inherit, custom or local", termtext.Clip(printable(source), 40))
}

func inherit(cfg RemoteConfig, getenv func(string) string) (Backend, error) {
	if strings.TrimSpace(getenv(EnvTypesafeKey)) != "" {
		cfg.Backend, cfg.APIKeyEnv = BackendTypesafe, EnvTypesafeKey
		r, err := newRemote(cfg, getenv)
		if err != nil {
			return nil, fmt.Errorf("%s is set, but: %w", EnvTypesafeKey, err)
		}
		return r, nil
	}
	if base := strings.TrimSpace(getenv(EnvOpenAIBaseURL)); base != "" {
		cfg.Backend, cfg.URL = BackendOpenAI, base
		if m := strings.TrimSpace(getenv(EnvOpenAIModel)); m != "" {
			cfg.Model = m
		}
		if cfg.APIKeyEnv == "" && getenv(EnvOpenAIKey) != "" {
			cfg.APIKeyEnv = EnvOpenAIKey
		}
		r, err := newRemote(cfg, getenv)
		if err != nil {
			return nil, fmt.Errorf("%s is set, but: %w", EnvOpenAIBaseURL, err)
		}
		return r, nil
	}
	return nil, nil
}
