package jev

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/hangdog/hangdog/internal/termtext"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
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

	maxRetries      = 10
	maxResponseSize = 1 << 20
	firstBackoff    = 500 * time.Millisecond
)

// RemoteConfig configures a remote backend.
type RemoteConfig struct {
	// Backend is "typesafe" (the hosted decision API) or "openai" (any
	// OpenAI-compatible /v1/chat/completions endpoint).
	Backend string
	// URL is the typesafe decide endpoint (default DefaultTypesafeURL), or
	// the OpenAI-compatible base URL, e.g. http://localhost:11434/v1.
	URL string
	// Model names the model; required for openai.
	Model string
	// APIKeyEnv names the environment variable that holds the API key (not
	// the key itself). typesafe defaults to TYPESAFE_API_KEY; for openai,
	// empty means no key and no Authorization header (local servers).
	APIKeyEnv string
	// Timeout bounds each HTTP call (default DefaultTimeout).
	Timeout time.Duration
	// Retries is how many times a 429 or 5xx answer is retried: 0 means
	// DefaultRetries, negative means none.
	Retries int
	// HTTPClient is the client to use (default: a new http.Client).
	HTTPClient *http.Client
}

// secret holds an API key so that no %v, %+v or JSON of a struct holding it
// can print it.
type secret string

func (secret) String() string               { return redacted }
func (secret) GoString() string             { return redacted }
func (secret) MarshalJSON() ([]byte, error) { return []byte(`"` + redacted + `"`), nil }

// remote is an HTTP backend; the wire format is the only difference between
// typesafe and openai.
type remote struct {
	name     string
	endpoint string
	model    string
	key      secret
	timeout  time.Duration
	retries  int
	client   *http.Client
	backoff  time.Duration
	format   wireFormat
}

// wireFormat encodes a request and decodes a response body for one API.
type wireFormat interface {
	request(model string, st State, qs []Question) ([]byte, error)
	answers(body []byte, qs []Question) ([]Answer, error)
}

// NewRemote returns the remote backend cfg describes, reading the API key
// from the environment variable cfg.APIKeyEnv names.
func NewRemote(cfg RemoteConfig) (Backend, error) {
	return newRemote(cfg, os.Getenv)
}

func newRemote(cfg RemoteConfig, getenv func(string) string) (*remote, error) {
	r := &remote{
		name:    cfg.Backend,
		model:   strings.TrimSpace(cfg.Model),
		timeout: cfg.Timeout,
		retries: cfg.Retries,
		client:  cfg.HTTPClient,
		backoff: firstBackoff,
	}
	switch {
	case cfg.Timeout < 0:
		return nil, fmt.Errorf("jev: RemoteConfig.Timeout is %v: it must be positive (or 0 for the default %v)", cfg.Timeout, DefaultTimeout)
	case cfg.Timeout == 0:
		r.timeout = DefaultTimeout
	}
	switch {
	case cfg.Retries > maxRetries:
		return nil, fmt.Errorf("jev: RemoteConfig.Retries is %d: at most %d retries are allowed", cfg.Retries, maxRetries)
	case cfg.Retries == 0:
		r.retries = DefaultRetries
	case cfg.Retries < 0:
		r.retries = 0
	}
	if r.client == nil {
		r.client = &http.Client{}
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
		r.format = typesafeFormat{}
	case BackendOpenAI:
		if rawURL == "" {
			return nil, errors.New("jev: RemoteConfig.URL is empty: the openai backend needs the server's base URL, e.g. http://localhost:11434/v1")
		}
		if r.model == "" {
			return nil, errors.New("jev: RemoteConfig.Model is empty: the openai backend needs a model name, e.g. llama3.1")
		}
		r.format = openaiFormat{}
	case "":
		return nil, fmt.Errorf("jev: RemoteConfig.Backend is empty: choose %q or %q", BackendTypesafe, BackendOpenAI)
	default:
		return nil, fmt.Errorf("jev: RemoteConfig.Backend %q is unknown: choose %q or %q", termtext.Clip(printable(cfg.Backend), 40), BackendTypesafe, BackendOpenAI)
	}
	endpoint, err := checkURL(rawURL)
	if err != nil {
		return nil, err
	}
	if cfg.Backend == BackendOpenAI {
		endpoint = chatCompletionsURL(endpoint)
	}
	r.endpoint = endpoint
	if keyEnv != "" {
		if !isEnvName(keyEnv) {
			return nil, errors.New("jev: RemoteConfig.APIKeyEnv must be the name of an environment variable holding the key (like TYPESAFE_API_KEY), not the key itself")
		}
		r.key = secret(strings.TrimSpace(getenv(keyEnv)))
		if r.key == "" && cfg.Backend == BackendTypesafe {
			return nil, fmt.Errorf("jev: the typesafe backend needs an API key: set %s in the environment", keyEnv)
		}
	}
	return r, nil
}

func checkURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("jev: RemoteConfig.URL %q is not an http(s) URL", safeURL(raw))
	}
	if u.User != nil {
		return "", errors.New("jev: RemoteConfig.URL holds a user or password: put the key in the environment variable APIKeyEnv names instead")
	}
	return u.String(), nil
}

// chatCompletionsURL turns an OpenAI-compatible base URL into its chat
// completions endpoint: …/v1 → …/v1/chat/completions; a bare host gets /v1.
func chatCompletionsURL(base string) string {
	u, _ := url.Parse(base) // checked by checkURL
	p := strings.TrimRight(u.Path, "/")
	switch {
	case strings.HasSuffix(p, "/chat/completions"):
	case p == "":
		p = "/v1/chat/completions"
	default:
		p += "/chat/completions"
	}
	u.Path = p
	return u.String()
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

// safeURL is a URL fit for an error message: no user, password or query.
func safeURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparseable URL)"
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}

func (r *remote) Name() string { return r.name }

// String and GoString keep fmt from printing the key: it does not call the
// key's own String method for an unexported field.
func (r remote) String() string   { return "jev " + r.name + " backend at " + safeURL(r.endpoint) }
func (r remote) GoString() string { return r.String() }

// Ask sends st and qs and returns one answer per question. Every failure —
// network, timeout, an error status, a malformed or incomplete answer —
// becomes abstentions and an error for the log.
func (r *remote) Ask(ctx context.Context, st State, qs []Question) ([]Answer, error) {
	body, err := r.format.request(r.model, st, qs)
	if err != nil {
		return abstainAll(qs, r.name, "the request could not be built"), fmt.Errorf("%s: build request: %w", r.name, err)
	}
	resp, err := r.post(ctx, body)
	if err != nil {
		return abstainAll(qs, r.name, r.name+" did not answer"), r.scrub(err)
	}
	answers, err := r.format.answers(resp, qs)
	if err != nil {
		return abstainAll(qs, r.name, r.name+" answered in a form hangdog cannot use"), r.scrub(fmt.Errorf("%s: %w", r.name, err))
	}
	answers, err = validateAnswers(qs, answers, r.name)
	return answers, r.scrub(err)
}

// post sends body, retrying 429 and 5xx answers, and returns the 2xx body.
func (r *remote) post(ctx context.Context, body []byte) ([]byte, error) {
	where := "POST " + safeURL(r.endpoint)
	for attempt := 0; ; attempt++ {
		status, header, data, err := r.once(ctx, body)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", r.name, where, err)
		}
		if status >= 200 && status < 300 {
			return data, nil
		}
		retryable := status == http.StatusTooManyRequests || status >= 500
		if !retryable || attempt >= r.retries {
			return nil, fmt.Errorf("%s: %s: %d %s%s", r.name, where, status, http.StatusText(status), r.bodySnippet(data))
		}
		wait := retryDelay(header.Get("Retry-After"), attempt, r.backoff, time.Now())
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("%s: %s: gave up waiting to retry after %d: %w", r.name, where, status, ctx.Err())
		case <-t.C:
		}
	}
}

// once makes one HTTP call under its own timeout.
func (r *remote) once(ctx context.Context, body []byte) (int, http.Header, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.endpoint, bytes.NewReader(body))
	if err != nil {
		return 0, nil, nil, fmt.Errorf("make request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "hangdog-jev/1")
	if r.key != "" {
		req.Header.Set("Authorization", "Bearer "+string(r.key))
	}
	resp, err := r.client.Do(req)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err // its message repeats the URL
		}
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
			return 0, nil, nil, fmt.Errorf("no answer within %v: %w", r.timeout, err)
		}
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseSize+1))
	if err != nil {
		return 0, nil, nil, fmt.Errorf("read response: %w", err)
	}
	if len(data) > maxResponseSize {
		return 0, nil, nil, fmt.Errorf("response larger than %d bytes", maxResponseSize)
	}
	return resp.StatusCode, resp.Header, data, nil
}

// retryDelay is how long to wait before retry number attempt+1: what
// Retry-After asks (seconds or an HTTP date), else an exponential backoff,
// never more than MaxRetryAfter.
func retryDelay(retryAfter string, attempt int, backoff time.Duration, now time.Time) time.Duration {
	d := backoff << min(attempt, 10)
	if v := strings.TrimSpace(retryAfter); v != "" {
		if secs, err := strconv.Atoi(v); err == nil && secs >= 0 {
			d = time.Duration(min(secs, int(MaxRetryAfter/time.Second)+1)) * time.Second
		} else if t, err := http.ParseTime(v); err == nil {
			d = max(t.Sub(now), 0)
		}
	}
	return min(d, MaxRetryAfter)
}

// bodySnippet quotes the start of an error body, redacted and printable.
func (r *remote) bodySnippet(data []byte) string {
	s := strings.TrimSpace(string(data))
	if s == "" {
		return ""
	}
	return ": " + termtext.Clip(printable(Redact(r.scrubText(s))), 200)
}

func (r *remote) scrubText(s string) string {
	if r.key == "" {
		return s
	}
	return strings.ReplaceAll(s, string(r.key), redacted)
}

// scrub guarantees the key appears in no error message, whatever a server
// echoed back.
func (r *remote) scrub(err error) error {
	if err == nil || r.key == "" || !strings.Contains(err.Error(), string(r.key)) {
		return err
	}
	return errors.New(r.scrubText(err.Error()))
}
