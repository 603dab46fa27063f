package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/hangdog/hangdog/internal/termtext"
	"github.com/hangdog/hangdog/jev"
)

const (
	maxResponseSize = 1 << 20
	firstBackoff    = 500 * time.Millisecond
	// redacted stands for a key in anything printed, as jev.Redact writes it.
	redacted = "[REDACTED]"
)

// secret holds an API key so that no %v, %+v or JSON of a struct holding it
// can print it.
type secret string

func (secret) String() string               { return redacted }
func (secret) GoString() string             { return redacted }
func (secret) MarshalJSON() ([]byte, error) { return []byte(`"` + redacted + `"`), nil }

// client is an HTTP backend; the wire format is the only difference between
// typesafe and openai.
type client struct {
	name       string
	endpoint   string
	model      string
	key        secret
	timeout    time.Duration
	retries    int
	httpClient *http.Client
	backoff    time.Duration
	format     wireFormat
}

// wireFormat encodes a request and decodes a response body for one API.
type wireFormat interface {
	request(model string, st jev.State, qs []jev.Question) ([]byte, error)
	answers(body []byte, qs []jev.Question) ([]jev.Answer, error)
	// conditionRequest asks whether condition holds for wrapped, a watched
	// text already made safe to send (condition.go).
	conditionRequest(model, condition, wrapped string) ([]byte, error)
	conditionAnswer(body []byte) (jev.ConditionAnswer, error)
}

// New returns the remote backend cfg describes, reading the API key from the
// environment variable cfg.APIKeyEnv names. cfg is checked as
// jev.ResolveRemote checks a "custom" one.
func New(cfg jev.RemoteConfig) (jev.Backend, error) {
	return newClient(cfg, os.Getenv)
}

func newClient(cfg jev.RemoteConfig, getenv func(string) string) (*client, error) {
	resolved, ok, err := jev.ResolveRemote("custom", cfg, getenv)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("jev: RemoteConfig.Backend %q is the local judge, not a remote backend: choose %q or %q", cfg.Backend, jev.BackendTypesafe, jev.BackendOpenAI)
	}
	cfg = resolved
	c := &client{
		name:       cfg.Backend,
		endpoint:   cfg.URL,
		model:      cfg.Model,
		timeout:    cfg.Timeout,
		retries:    max(cfg.Retries, 0),
		httpClient: &http.Client{},
		backoff:    firstBackoff,
	}
	switch cfg.Backend {
	case jev.BackendTypesafe:
		c.format = typesafeFormat{}
	case jev.BackendOpenAI:
		c.format = openaiFormat{}
		c.endpoint = chatCompletionsURL(cfg.URL)
	}
	if cfg.APIKeyEnv != "" {
		c.key = secret(strings.TrimSpace(getenv(cfg.APIKeyEnv)))
	}
	return c, nil
}

// chatCompletionsURL turns an OpenAI-compatible base URL into its chat
// completions endpoint: …/v1 → …/v1/chat/completions; a bare host gets /v1.
func chatCompletionsURL(base string) string {
	u, _ := url.Parse(base) // checked by jev.ResolveRemote
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

func (r *client) Name() string { return r.name }

// String and GoString keep fmt from printing the key: it does not call the
// key's own String method for an unexported field.
func (r client) String() string   { return "jev " + r.name + " backend at " + jev.SafeURL(r.endpoint) }
func (r client) GoString() string { return r.String() }

// Ask sends st and qs and returns one answer per question. Every failure —
// network, timeout, an error status, a malformed or incomplete answer —
// becomes abstentions and an error for the log.
func (r *client) Ask(ctx context.Context, st jev.State, qs []jev.Question) ([]jev.Answer, error) {
	body, err := r.format.request(r.model, st, qs)
	if err != nil {
		return jev.AbstainAll(qs, r.name, "the request could not be built"), fmt.Errorf("%s: build request: %w", r.name, err)
	}
	body = r.scrubBody(body)
	resp, err := r.post(ctx, body)
	if err != nil {
		return jev.AbstainAll(qs, r.name, r.name+" did not answer"), r.scrub(err)
	}
	answers, err := r.format.answers(resp, qs)
	if err != nil {
		return jev.AbstainAll(qs, r.name, r.name+" answered in a form hangdog cannot use"), r.scrub(fmt.Errorf("%s: %w", r.name, err))
	}
	answers, err = jev.ValidateAnswers(qs, answers, r.name)
	return answers, r.scrub(err)
}

// post sends body, retrying 429 and 5xx answers, and returns the 2xx body.
func (r *client) post(ctx context.Context, body []byte) ([]byte, error) {
	where := "POST " + jev.SafeURL(r.endpoint)
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
func (r *client) once(ctx context.Context, body []byte) (int, http.Header, []byte, error) {
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
	resp, err := r.httpClient.Do(req)
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
// never more than jev.MaxRetryAfter.
func retryDelay(retryAfter string, attempt int, backoff time.Duration, now time.Time) time.Duration {
	d := backoff << min(attempt, 10)
	if v := strings.TrimSpace(retryAfter); v != "" {
		if secs, err := strconv.Atoi(v); err == nil && secs >= 0 {
			d = time.Duration(min(secs, int(jev.MaxRetryAfter/time.Second)+1)) * time.Second
		} else if t, err := http.ParseTime(v); err == nil {
			d = max(t.Sub(now), 0)
		}
	}
	return min(d, jev.MaxRetryAfter)
}

// bodySnippet quotes the start of an error body, redacted and printable.
func (r *client) bodySnippet(data []byte) string {
	s := strings.TrimSpace(string(data))
	if s == "" {
		return ""
	}
	return ": " + termtext.Clip(jev.Printable(jev.Redact(r.scrubText(s))), 200)
}

// scrubBody removes the key's own value from what is sent: a command that
// prints it (env, echo $OPENAI_API_KEY) must not hand it to the model, even
// in a shape Redact does not know.
func (r *client) scrubBody(body []byte) []byte {
	if len(r.key) < 8 { // too short to tell from ordinary text
		return body
	}
	return bytes.ReplaceAll(body, []byte(r.key), []byte(redacted))
}

func (r *client) scrubText(s string) string {
	if r.key == "" {
		return s
	}
	return strings.ReplaceAll(s, string(r.key), redacted)
}

// scrub guarantees the key appears in no error message, whatever a server
// echoed back.
func (r *client) scrub(err error) error {
	if err == nil || r.key == "" || !strings.Contains(err.Error(), string(r.key)) {
		return err
	}
	return errors.New(r.scrubText(err.Error()))
}
