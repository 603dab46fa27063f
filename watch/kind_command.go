package watch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// CursorEnv is the environment variable that hands a command watcher its
// previous cursor, as JSON ("null" the first time).
const CursorEnv = "HANGDOG_WATCH_CURSOR"

// commandSource runs a bash command that prints one JSON object:
//
//	{"outcome": "idle"|"activity"|"terminal", "payload": …, "cursor": …}
//
// idle is a quiet poll; activity fires with the payload; terminal fires
// and ends the watcher. The cursor is opaque, kept and handed back next
// time. A non-zero exit, a timeout or output that is not that object is an
// idle poll — a flaky probe must not wake anyone — unless strict, where it
// is an error that counts toward the auto-pause.
type commandSource struct {
	command string
	timeout time.Duration
	strict  bool
}

type commandReply struct {
	Outcome string          `json:"outcome"`
	Payload json.RawMessage `json:"payload"`
	Cursor  json.RawMessage `json:"cursor"`
}

func (c *commandSource) Observe(ctx context.Context, last *State) (*Observation, error) {
	cursor := json.RawMessage("null")
	if last != nil && len(last.Cursor) > 0 {
		// Compact: the state file stores it indented.
		var b bytes.Buffer
		if json.Compact(&b, last.Cursor) == nil {
			cursor = b.Bytes()
		}
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", c.command)
	cmd.Env = append(os.Environ(), CursorEnv+"="+string(cursor))
	// Its own process group, so a timeout kills what it started too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &limitWriter{&out, maxBody}, &limitWriter{&errb, 8 << 10}
	err := cmd.Run()
	fail := func(why string) (*Observation, error) {
		if c.strict {
			return nil, fmt.Errorf("command watcher: %s", why)
		}
		// Idle, and the cursor stays: the next run gets the same one.
		return &Observation{Quiet: true, Cursor: cursor, Payload: why}, nil
	}
	switch {
	case ctx.Err() != nil:
		return fail(fmt.Sprintf("timed out after %v", c.timeout))
	case err != nil:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return fail(fmt.Sprintf("exited %d: %s", ee.ExitCode(), clip(errb.String(), 200)))
		}
		return fail(err.Error())
	}
	var rep commandReply
	dec := json.NewDecoder(bytes.NewReader(out.Bytes()))
	if err := dec.Decode(&rep); err != nil {
		return fail(fmt.Sprintf("printed no JSON object (%v): %s", err, clip(out.String(), 200)))
	}
	next := cursor
	if len(rep.Cursor) > 0 {
		var b bytes.Buffer
		if json.Compact(&b, rep.Cursor) == nil {
			next = b.Bytes()
		}
	}
	obs := &Observation{Cursor: next}
	switch strings.ToLower(rep.Outcome) {
	case "idle":
		obs.Quiet = true
	case "activity":
		obs.Fire, obs.Payload = true, payloadText(rep.Payload)
	case "terminal":
		obs.Fire, obs.Terminal, obs.Payload = true, true, payloadText(rep.Payload)
	default:
		return fail(fmt.Sprintf("outcome %q: use idle, activity or terminal", rep.Outcome))
	}
	obs.Text = obs.Payload
	return obs, nil
}

func payloadText(p json.RawMessage) string {
	var s string
	if json.Unmarshal(p, &s) == nil {
		return s
	}
	return string(p)
}

// limitWriter keeps the first n bytes and drops the rest, so a runaway
// command cannot fill memory.
type limitWriter struct {
	b *bytes.Buffer
	n int
}

func (w *limitWriter) Write(p []byte) (int, error) {
	if room := w.n - w.b.Len(); room > 0 {
		w.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
