package askproc

import (
	"time"

	"github.com/hangdog/hangdog/jev"
)

// request is what the asker writes to the helper's stdin. Config names the
// key's environment variable, never the key.
type request struct {
	Config    jev.RemoteConfig `json:"config"`
	State     jev.State        `json:"state"`
	Questions []jev.Question   `json:"questions"`
}

// response is what the helper writes to its stdout: the backend's answers,
// one per question, and why any are abstentions.
type response struct {
	Answers []jev.Answer `json:"answers,omitempty"`
	Error   string       `json:"error,omitempty"`
}

const (
	// maxRequestSize caps what the helper reads: a state's tail of output is
	// the only part that grows, and it is far smaller.
	maxRequestSize = 16 << 20
	// maxResponseSize and maxStderrSize cap what the asker reads back.
	maxResponseSize = 1 << 20
	maxStderrSize   = 4 << 10
	// maxErrorChars caps the helper's error as the asker reports it.
	maxErrorChars = 2000

	// startMargin is what the asker allows beyond the backend's own
	// budget: the helper's start-up and the JSON both ways.
	startMargin = 5 * time.Second
	// Beyond these, a configuration is rejected by the helper anyway; they
	// keep budget from overflowing before it is.
	mostRetries = 10
	mostTimeout = time.Hour
)

// budget is the longest one Ask of the remote backend cfg configures can
// take: every call (the first and each retry) times out after cfg.Timeout,
// and between two calls it waits at most jev.MaxRetryAfter.
func budget(cfg jev.RemoteConfig) time.Duration {
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = jev.DefaultTimeout
	}
	retries := cfg.Retries
	switch {
	case retries == 0:
		retries = jev.DefaultRetries
	case retries < 0:
		retries = 0
	}
	timeout, retries = min(timeout, mostTimeout), min(retries, mostRetries)
	return time.Duration(retries+1)*timeout + time.Duration(retries)*jev.MaxRetryAfter
}
