package watch

import (
	"context"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/hangdog/hangdog/internal/inotify"
)

// A writer that does not replace a file atomically (os.WriteFile, a shell's
// `>`, a log being appended) shows up as a truncate and then one or more
// writes: a check run on the first event reads an empty or half-written
// file and fires on text nobody meant. So a wake-up waits until the
// directory has been quiet for writeSettle — but no longer than
// writeSettleMax after the first event, so a file written without pause
// is still checked.
const (
	writeSettle    = 150 * time.Millisecond
	writeSettleMax = 2 * time.Second
)

// watchDir watches directory dir with inotify and signals the returned
// channel (at most one wake-up pending) once events keep accepts have
// settled (writeSettle). Its goroutine is owned by ctx: it closes the
// fsnotify watcher (inotify.Close: fsnotify's own Close can hang) and
// returns when ctx is done.
func watchDir(ctx context.Context, dir string, keep func(fsnotify.Event) bool) (<-chan struct{}, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	if err := w.Add(dir); err != nil {
		w.Close()
		return nil, err
	}
	out := make(chan struct{}, 1)
	go func() {
		defer inotify.Close(w)
		quiet := time.NewTimer(time.Hour)
		quiet.Stop()
		defer quiet.Stop()
		var first time.Time // of the events not yet signalled; zero: none
		signal := func() {
			first = time.Time{}
			select {
			case out <- struct{}{}:
			default: // one pending wake-up is enough
			}
		}
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				if !keep(ev) {
					continue
				}
				now := time.Now()
				if first.IsZero() {
					first = now
				}
				wait := min(writeSettle, first.Add(writeSettleMax).Sub(now))
				if wait <= 0 {
					quiet.Stop()
					signal()
					continue
				}
				quiet.Reset(wait)
			case <-quiet.C:
				signal()
			case _, ok := <-w.Errors:
				if !ok {
					return
				}
			}
		}
	}()
	return out, nil
}
