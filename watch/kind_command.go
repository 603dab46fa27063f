package watch

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	var out, errb bytes.Buffer
	err := runCheck(ctx, c.command, CursorEnv+"="+string(cursor), &limitWriter{&out, maxBody}, &limitWriter{&errb, 8 << 10})
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

// checkMarkEnv marks every process of one check in its environment, so
// that endCheckTree finds those that left its process group.
const checkMarkEnv = "HANGDOG_WATCH_CHECK"

// outputGrace bounds the wait for a check's output once its tree is
// killed: only a process that escaped the kill can hold the pipes longer.
const outputGrace = time.Second

// runCheck runs one check of command and ends its whole process tree with
// it (endCheckTree), whether it exits, fails or times out: a check that
// leaves a process behind would leave one per check, for the watcher's
// life and after. Its output is read through pipes of its own, so its
// exit is seen at once even while a descendant still holds them.
func runCheck(ctx context.Context, command, env string, stdout, stderr io.Writer) error {
	var mark [16]byte
	if _, err := rand.Read(mark[:]); err != nil {
		return fmt.Errorf("mark the check: %w", err)
	}
	markHex := hex.EncodeToString(mark[:])
	cmd := exec.CommandContext(ctx, "bash", "-c", command)
	cmd.Env = append(os.Environ(), env, checkMarkEnv+"="+markHex)
	// Its own process group, so a timeout kills what it started too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	outR, outW, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("command watcher: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return fmt.Errorf("command watcher: %w", err)
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	err = cmd.Start()
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return err
	}
	// Read before Wait: bash is at least a zombie until then.
	since := procStartTicks(cmd.Process.Pid)
	done := make(chan struct{}, 2)
	for _, p := range []struct {
		r *os.File
		w io.Writer
	}{{outR, stdout}, {errR, stderr}} {
		go func() {
			_, _ = io.Copy(p.w, p.r)
			done <- struct{}{}
		}()
	}
	err = cmd.Wait()
	endCheckTree(cmd.Process.Pid, markHex, since)
	grace := time.NewTimer(outputGrace)
	defer grace.Stop()
	for range 2 {
		select {
		case <-done:
		case <-grace.C:
			// An escaped process holds a pipe: closing the read ends
			// ends the copies.
			outR.Close()
			errR.Close()
			<-done
		}
	}
	outR.Close()
	errR.Close()
	return err
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
