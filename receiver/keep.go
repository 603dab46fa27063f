package receiver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/watch"
)

// keepEvery is how often Keep looks whether the receiver is alive, and
// keepRetry how long it waits after a restart failed (the port held by
// another program, say) before it tries again.
const (
	keepEvery = time.Second
	keepRetry = 2 * time.Second
)

// LinkActive reports whether w's link may still be called (a trigger link
// that is open, an approval whose page is served): what keeps the
// receiver running.
func LinkActive(store *watch.Store, w *watch.Watcher, now time.Time) bool {
	switch w.Spec.Kind {
	case watch.KindWebhook:
		return store.WebhookOpen(w, now)
	case watch.KindApproval:
		return store.ApprovalServed(w, now)
	}
	return false
}

// Keep brings the home's receiver back whenever it is found dead (a crash,
// a kill -9, the OOM killer) while watcher id's link is active, until ctx
// ends: every open link's runner runs it, so a receiver is restarted
// within about keepEvery of its death, by Ensure (concurrent Keeps take
// turns under its lock; one starts it). A look costs a read of
// address.json and of the receiver's /proc/PID/stat, no request. What it
// did goes to log: each restart, and why one failed once until it
// succeeds.
func Keep(ctx context.Context, store *watch.Store, id string, log io.Writer) {
	dir := dirOf(store)
	tick := time.NewTicker(keepEvery)
	defer tick.Stop()
	var said string
	say := func(msg string) {
		if msg != said && log != nil {
			fmt.Fprintf(log, "%s %s %s\n", time.Now().UTC().Format(time.RFC3339), id, msg)
		}
		said = msg
	}
	var retryAt time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if receiverAlive(dir) || time.Now().Before(retryAt) {
			continue
		}
		w, err := store.Lookup(id)
		if err != nil || !LinkActive(store, w, time.Now()) {
			continue // its runner is about to end
		}
		if _, err := Ensure(ctx, store); err != nil {
			if errors.Is(err, context.Canceled) {
				return
			}
			say("the receiver is not running and could not be restarted: " + err.Error())
			retryAt = time.Now().Add(keepRetry)
			continue
		}
		say("the receiver was not running: restarted")
		said = "" // the next death is news again
	}
}

// receiverAlive reports whether the receiver address.json names is still the
// process that wrote it (its pid with the start time it recorded).
func receiverAlive(dir string) bool {
	a, err := readAddress(dir)
	if err != nil || a.PID <= 0 {
		return false
	}
	if a.StartTicks == 0 { // no /proc here: the pid alone
		err := syscall.Kill(a.PID, 0)
		return err == nil || errors.Is(err, syscall.EPERM)
	}
	ticks, err := bgtasks.ProcStartTicks(a.PID)
	return err == nil && ticks == a.StartTicks
}

// startTicks is this process's start time, for address.json.
func startTicks() uint64 {
	t, _ := bgtasks.ProcStartTicks(os.Getpid())
	return t
}
