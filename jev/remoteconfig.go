package jev

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/hangdog/hangdog/internal/termtext"
)

// The remote backends.
const (
	BackendTypesafe = "typesafe"
	BackendOpenAI   = "openai"
)

// Remote defaults.
const (
	DefaultTypesafeURL    = "https://api.typesafe.ai/v1/decide"
	DefaultTypesafeKeyEnv = "TYPESAFE_API_KEY"
	DefaultTimeout        = 20 * time.Second
	DefaultRetries        = 2
	// MaxRetryAfter caps how long a Retry-After header can make a call wait.
	MaxRetryAfter = 15 * time.Second

	maxRetries = 10
)

// RemoteConfig configures a remote backend. It names the API key's
// environment variable, never the key, so it may be logged or handed to
// another process.
type RemoteConfig struct {
	// Backend is "typesafe" (the hosted decision API) or "openai" (any
	// OpenAI-compatible /v1/chat/completions endpoint).
	Backend string `json:"backend"`
	// URL is the typesafe decide endpoint (default DefaultTypesafeURL), or
	// the OpenAI-compatible base URL, e.g. http://localhost:11434/v1.
	URL string `json:"url,omitempty"`
	// Model names the model; required for openai.
	Model string `json:"model,omitempty"`
	// APIKeyEnv names the environment variable that holds the API key (not
	// the key itself). typesafe defaults to TYPESAFE_API_KEY; for openai,
	// empty means no key and no Authorization header (local servers).
	APIKeyEnv string `json:"api_key_env,omitempty"`
	// Timeout bounds each HTTP call (default DefaultTimeout).
	Timeout time.Duration `json:"timeout,omitempty"`
	// Retries is how many times a 429 or 5xx answer is retried: 0 means
	// DefaultRetries, negative means none.
	Retries int `json:"retries,omitempty"`
}

// checkRemote validates cfg and fills in its defaults, so that a bad
// configuration is reported when judging starts rather than at the first
// ask. It needs no network: the URL's shape, the key variable's name and,
// for typesafe, that the variable is set.
func checkRemote(cfg RemoteConfig, getenv func(string) string) (RemoteConfig, error) {
	out := RemoteConfig{
		Backend: cfg.Backend,
		Model:   strings.TrimSpace(cfg.Model),
		Timeout: cfg.Timeout,
		Retries: cfg.Retries,
	}
	switch {
	case cfg.Timeout < 0:
		return RemoteConfig{}, fmt.Errorf("jev: RemoteConfig.Timeout is %v: it must be positive (or 0 for the default %v)", cfg.Timeout, DefaultTimeout)
	case cfg.Timeout == 0:
		out.Timeout = DefaultTimeout
	}
	switch {
	case cfg.Retries > maxRetries:
		return RemoteConfig{}, fmt.Errorf("jev: RemoteConfig.Retries is %d: at most %d retries are allowed", cfg.Retries, maxRetries)
	case cfg.Retries == 0:
		out.Retries = DefaultRetries
	}
	keyEnv := strings.TrimSpace(cfg.APIKeyEnv)
	rawURL := strings.TrimSpace(cfg.URL)
	switch cfg.Backend {
	case BackendTypesafe:
		if rawURL == "" {
			rawURL = DefaultTypesafeURL
		}
		if keyEnv == "" {
			keyEnv = DefaultTypesafeKeyEnv
		}
	case BackendOpenAI:
		if rawURL == "" {
			return RemoteConfig{}, errors.New("jev: RemoteConfig.URL is empty: the openai backend needs the server's base URL, e.g. http://localhost:11434/v1")
		}
		if out.Model == "" {
			return RemoteConfig{}, errors.New("jev: RemoteConfig.Model is empty: the openai backend needs a model name, e.g. llama3.1")
		}
	case "":
		return RemoteConfig{}, fmt.Errorf("jev: RemoteConfig.Backend is empty: choose %q or %q", BackendTypesafe, BackendOpenAI)
	default:
		return RemoteConfig{}, fmt.Errorf("jev: RemoteConfig.Backend %q is unknown: choose %q or %q", termtext.Clip(Printable(cfg.Backend), 40), BackendTypesafe, BackendOpenAI)
	}
	u, err := checkURL(rawURL)
	if err != nil {
		return RemoteConfig{}, err
	}
	out.URL = u
	if keyEnv != "" {
		if !isEnvName(keyEnv) {
			return RemoteConfig{}, errors.New("jev: RemoteConfig.APIKeyEnv must be the name of an environment variable holding the key (like TYPESAFE_API_KEY), not the key itself")
		}
		if cfg.Backend == BackendTypesafe && strings.TrimSpace(getenv(keyEnv)) == "" {
			return RemoteConfig{}, fmt.Errorf("jev: the typesafe backend needs an API key: set %s in the environment", keyEnv)
		}
	}
	out.APIKeyEnv = keyEnv
	return out, nil
}

func checkURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("jev: RemoteConfig.URL %q is not an http(s) URL", SafeURL(raw))
	}
	if u.User != nil {
		return "", errors.New("jev: RemoteConfig.URL holds a user or password: put the key in the environment variable APIKeyEnv names instead")
	}
	return u.String(), nil
}

func isEnvName(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for i, c := range s {
		if c != '_' && (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// SafeURL is a URL fit for an error message or a log line: no user,
// password, query or fragment, where a key could hide.
func SafeURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparseable URL)"
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}
