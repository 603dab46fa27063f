// Package askproc asks a remote decision model through a short-lived helper
// process, so that the process that judges — hangdog's supervisor, started
// for every command — links no HTTP client. net/http and crypto/tls cost
// every start-up their initialisers; a remote model is asked rarely (a due
// check every few minutes, only when the local judge is unsure), so one
// helper per ask costs less.
//
// The asker writes one JSON request (the backend's configuration, the state,
// the questions) to the helper's stdin and reads one JSON response (the
// answers, an error) from its stdout. The API key never travels in it: the
// helper reads the variable the configuration names from the environment it
// inherits. The helper's side, Serve, takes the backend's constructor as an
// argument, which keeps the HTTP client out of this package.
package askproc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/hangdog/hangdog/internal/hiddenarg"
	"github.com/hangdog/hangdog/internal/termtext"
	"github.com/hangdog/hangdog/jev"
)

// backend is a remote backend asked through `exe __ask`.
type backend struct {
	exe string
	cfg jev.RemoteConfig
}

// New returns a backend that asks the remote model cfg configures (checked
// by jev.ResolveRemote) through the helper program exe, run as `exe __ask`
// with this process's environment. Each Ask starts one helper and waits for
// it; it is safe for concurrent use.
func New(exe string, cfg jev.RemoteConfig) jev.Backend {
	return &backend{exe: exe, cfg: cfg}
}

func (b *backend) Name() string { return b.cfg.Backend }

// Ask starts the helper, hands it st and qs, and returns its answers, one
// per question. Every failure — the helper missing, crashing, answering
// garbage or too much, ctx ending, the backend's budget running out — gives
// abstentions and an error that says why. ctx ending kills the helper; Ask
// returns once it is gone.
func (b *backend) Ask(ctx context.Context, st jev.State, qs []jev.Question) ([]jev.Answer, error) {
	req, err := json.Marshal(request{Config: b.cfg, State: st, Questions: qs})
	if err != nil {
		return jev.AbstainAll(qs, b.cfg.Backend, "the request could not be built"), fmt.Errorf("%s: encode the request for the helper: %w", b.cfg.Backend, err)
	}
	resp, err := b.run(ctx, req)
	if err != nil {
		return jev.AbstainAll(qs, b.cfg.Backend, "the helper process gave no usable answer"), fmt.Errorf("%s: ask through %s: %w", b.cfg.Backend, b.exe, err)
	}
	var helperErr error
	if resp.Error != "" {
		helperErr = errors.New(termtext.Clip(jev.Printable(resp.Error), maxErrorChars))
	}
	if len(resp.Answers) == 0 && helperErr != nil {
		return jev.AbstainAll(qs, b.cfg.Backend, b.cfg.Backend+" did not answer"), helperErr
	}
	// The helper validated them already; this keeps the contract whatever
	// it wrote.
	answers, err := jev.ValidateAnswers(qs, resp.Answers, b.cfg.Backend)
	return answers, errors.Join(helperErr, err)
}

// run runs one helper with req as its input and returns its response. The
// helper is always waited for, and every goroutine os/exec starts for it
// ends with Run.
func (b *backend) run(ctx context.Context, req []byte) (response, error) {
	limit := budget(b.cfg) + startMargin
	runCtx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	stdout := &capped{limit: maxResponseSize, refuse: true}
	stderr := &capped{limit: maxStderrSize}
	cmd := exec.CommandContext(runCtx, b.exe, hiddenarg.Ask)
	cmd.Stdin = bytes.NewReader(req)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = helperAttr()
	// Killed, the helper closes its pipes at once; this only bounds a wait
	// on a descendant still holding them.
	cmd.WaitDelay = time.Second
	runErr := cmd.Run()

	var resp response
	decodeErr := json.Unmarshal(stdout.buf.Bytes(), &resp)
	switch {
	case decodeErr == nil && !stdout.over:
		// A whole response counts even if the exit status is lost: the
		// supervisor, a child subreaper, may reap the helper first.
		return resp, nil
	case cmd.Process == nil:
		return response{}, fmt.Errorf("start the helper: %w", runErr)
	case ctx.Err() != nil:
		return response{}, fmt.Errorf("stopped the helper: %w", context.Cause(ctx))
	case runCtx.Err() != nil:
		return response{}, fmt.Errorf("stopped the helper after %v without an answer", limit)
	case stdout.over:
		return response{}, fmt.Errorf("the helper's answer is larger than %d bytes", maxResponseSize)
	case stdout.buf.Len() == 0:
		return response{}, fmt.Errorf("the helper gave no answer (%s)%s", exitDescription(runErr), stderr.excerpt())
	}
	return response{}, fmt.Errorf("the helper's answer is not JSON (%s): %w%s", exitDescription(runErr), decodeErr, stderr.excerpt())
}

// exitDescription says how the helper ended, as far as Run could tell.
func exitDescription(runErr error) string {
	if runErr == nil {
		return "exit status 0"
	}
	return runErr.Error()
}

// capped keeps the first limit bytes written to it. Past them it drops the
// rest, or, with refuse, fails the write: os/exec then stops copying and
// closes the pipe, so a helper that writes without end is stopped by its
// next write.
type capped struct {
	buf    bytes.Buffer
	limit  int
	refuse bool
	over   bool
}

var errTooMuch = errors.New("more output than hangdog reads from a helper")

func (c *capped) Write(p []byte) (int, error) {
	room := c.limit - c.buf.Len()
	if len(p) <= room {
		return c.buf.Write(p)
	}
	c.buf.Write(p[:room])
	c.over = true
	if c.refuse {
		return room, errTooMuch
	}
	return len(p), nil
}

// excerpt is the start of what the helper wrote to stderr (a Go panic's
// message, a usage error), made printable, for an error message.
func (c *capped) excerpt() string {
	s := strings.TrimSpace(jev.Printable(c.buf.String()))
	if s == "" {
		return ""
	}
	return ": " + termtext.Clip(s, 300)
}
