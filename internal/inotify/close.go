// Package inotify holds what hangdog's users of fsnotify share.
package inotify

import "github.com/fsnotify/fsnotify"

// Close closes w without the deadlock fsnotify 1.9 has: its reader sends
// an event or an error while holding the lock Close takes first (a watched
// directory renamed away — a watcher deleted — sends an error), so a Close
// with nobody reading waits forever. Both channels are drained until the
// reader is gone.
func Close(w *fsnotify.Watcher) error {
	done := make(chan struct{})
	go func() {
		events, errs := w.Events, w.Errors
		for events != nil || errs != nil {
			select {
			case _, ok := <-events:
				if !ok {
					events = nil
				}
			case _, ok := <-errs:
				if !ok {
					errs = nil
				}
			case <-done:
				return
			}
		}
	}()
	err := w.Close()
	close(done)
	return err
}
