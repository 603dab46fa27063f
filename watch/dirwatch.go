package watch

import (
	"context"

	"github.com/fsnotify/fsnotify"

	"github.com/hangdog/hangdog/internal/inotify"
)

// watchDir watches directory dir with inotify and signals the returned
// channel (at most one wake-up pending) for each event keep accepts. Its
// goroutine is owned by ctx: it closes the fsnotify watcher (inotify.Close:
// fsnotify's own Close can hang) and returns when ctx is done.
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
				select {
				case out <- struct{}{}:
				default: // one pending wake-up is enough
				}
			case _, ok := <-w.Errors:
				if !ok {
					return
				}
			}
		}
	}()
	return out, nil
}
