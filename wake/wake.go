// Package wake owns the worker that wakes an idle agent: it hands each
// batch of a consumer's new events to a command (one that resumes the
// agent's session with the events as its prompt, say), one run at a time,
// and keeps a record on disk so that after a kill -9 at any point no event
// is handed over twice when the record shows it was handled.
//
// The record, <home>/wake/<consumer>.json, names the batch in hand and
// whether its run finished. The consumer's cursor in the event log moves
// only after a run succeeded. After a crash:
//   - a batch marked handled only moves the cursor (the run is not repeated);
//   - a batch whose run may have been cut short is asked about with --seen
//     (the agent's own record, by event id): handled → the cursor moves;
//     otherwise, or without --seen, the batch is handed over again
//     (at-least-once).
package wake

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/internal/safefile"
)

// IDsEnv holds the batch's event ids (seq numbers), space-separated, for
// the run and the seen commands; the events themselves come on stdin, one
// JSON object per line.
const IDsEnv = "HANGDOG_EVENT_IDS"

// Worker is one consumer's waker.
type Worker struct {
	Reg      *bgtasks.Registry
	Consumer string
	Run      string // bash command handed each batch
	Seen     string // optional bash command: exit 0 if the agent already handled the batch
	// Scope limits the events handed over (a session's own; Scope{All:
	// true} for every event); the cursor still moves past the others.
	Scope bgtasks.Scope
	Log   io.Writer
	// Poll is how often the event log is looked at when idle (a stat).
	Poll time.Duration
	// RetryAfter is the wait after a failed run before the batch is
	// handed over again.
	RetryAfter time.Duration
}

type record struct {
	First   int64     `json:"first"`
	Last    int64     `json:"last"`
	IDs     []int64   `json:"ids"`
	Handled bool      `json:"handled"`
	Started time.Time `json:"started"`
}

func (w *Worker) recordPath() string {
	return filepath.Join(w.Reg.Home(), "wake", w.Consumer+".json")
}

func (w *Worker) logf(format string, args ...any) {
	if w.Log != nil {
		fmt.Fprintf(w.Log, time.Now().UTC().Format(time.RFC3339)+" wake "+w.Consumer+": "+format+"\n", args...)
	}
}

func (w *Worker) readRecord() (*record, error) {
	b, err := os.ReadFile(w.recordPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read wake record: %w", err)
	}
	var r record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("read wake record %s: %w", w.recordPath(), err)
	}
	return &r, nil
}

func (w *Worker) writeRecord(r *record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return safefile.Write(w.recordPath(), b)
}

func (w *Worker) settle(last int64) error {
	if err := w.Reg.MarkDelivered(w.Consumer, last); err != nil {
		return err
	}
	if err := os.Remove(w.recordPath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("clear wake record: %w", err)
	}
	return nil
}

// Loop hands batches over until ctx ends.
func (w *Worker) Loop(ctx context.Context) error {
	if err := os.MkdirAll(filepath.Dir(w.recordPath()), 0o700); err != nil {
		return fmt.Errorf("wake directory: %w", err)
	}
	poll, retry := w.Poll, w.RetryAfter
	if poll == 0 {
		poll = 500 * time.Millisecond
	}
	if retry == 0 {
		retry = 10 * time.Second
	}
	if err := w.recover(ctx); err != nil {
		return err
	}
	w.logf("waiting for events")
	for {
		evs, err := w.Reg.Undelivered(w.Consumer)
		if err != nil {
			return err
		}
		if len(evs) > 0 {
			mine := w.Scope.Events(evs)
			last := evs[len(evs)-1].Seq
			if len(mine) == 0 {
				if err := w.Reg.MarkDelivered(w.Consumer, last); err != nil {
					return err
				}
				continue
			}
			ok, err := w.hand(ctx, mine, last)
			if err != nil {
				return err
			}
			if ok {
				continue
			}
			if !sleep(ctx, retry) {
				return nil
			}
			continue
		}
		if !sleep(ctx, poll) {
			return nil
		}
	}
}

// hand runs the command on one batch; ok reports that it succeeded and the
// cursor moved.
func (w *Worker) hand(ctx context.Context, evs []bgtasks.Event, last int64) (bool, error) {
	rec := &record{First: evs[0].Seq, Last: last, Started: time.Now()}
	for _, e := range evs {
		rec.IDs = append(rec.IDs, e.Seq)
	}
	// Recorded before the run: a crash from here on is seen on restart.
	if err := w.writeRecord(rec); err != nil {
		return false, err
	}
	w.logf("handing over events %s", ids(rec.IDs))
	if err := w.command(ctx, w.Run, evs, rec.IDs); err != nil {
		w.logf("run failed: %v; the batch is handed over again later", err)
		return false, os.Remove(w.recordPath())
	}
	rec.Handled = true
	if err := w.writeRecord(rec); err != nil {
		return false, err
	}
	return true, w.settle(last)
}

// recover finishes what a previous worker left in its record.
func (w *Worker) recover(ctx context.Context) error {
	rec, err := w.readRecord()
	if err != nil || rec == nil {
		return err
	}
	if rec.Handled {
		w.logf("events %s were handled before a restart; not handing them over again", ids(rec.IDs))
		return w.settle(rec.Last)
	}
	if w.Seen != "" {
		evs, err := w.Reg.Events(rec.First - 1)
		if err != nil {
			return err
		}
		var batch []bgtasks.Event
		for _, e := range evs {
			if e.Seq <= rec.Last {
				batch = append(batch, e)
			}
		}
		if err := w.command(ctx, w.Seen, batch, rec.IDs); err == nil {
			w.logf("the agent's record has events %s; not handing them over again", ids(rec.IDs))
			return w.settle(rec.Last)
		}
		w.logf("the agent's record lacks events %s; handing them over again", ids(rec.IDs))
	} else {
		w.logf("a run on events %s was cut short; handing them over again (no --seen to ask)", ids(rec.IDs))
	}
	if err := os.Remove(w.recordPath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("clear wake record: %w", err)
	}
	return nil
}

// command runs a bash command with the events on stdin. It dies with the
// worker (a killed worker leaves no run behind to finish unrecorded).
func (w *Worker) command(ctx context.Context, command string, evs []bgtasks.Event, seqs []int64) error {
	var in bytes.Buffer
	enc := json.NewEncoder(&in)
	for _, e := range evs {
		if err := enc.Encode(e); err != nil {
			return err
		}
	}
	cmd := exec.CommandContext(ctx, "bash", "-c", command)
	cmd.Stdin = &in
	cmd.Env = append(os.Environ(), IDsEnv+"="+ids(seqs))
	cmd.Stdout, cmd.Stderr = w.Log, w.Log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	return cmd.Run()
}

func ids(seqs []int64) string {
	s := make([]string, len(seqs))
	for i, n := range seqs {
		s[i] = strconv.FormatInt(n, 10)
	}
	return strings.Join(s, " ")
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
