package receiver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hangdog/hangdog/watch"
)

// Keep brings back a receiver killed with -9 while its link is active,
// and leaves alone one that left because no link is active any more.
func TestKeepRestartsAKilledReceiverWhileItsLinkIsActive(t *testing.T) {
	home, store := processHome(t, "127.0.0.1:"+freePort(t))
	c, err := store.Create(context.Background(), &watch.Request{Kind: watch.KindWebhook}, owner, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Ensure(context.Background(), store); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(home, serveDir)
	first, err := readAddress(dir)
	if err != nil || !receiverAlive(dir) {
		t.Fatalf("the first receiver: %+v %v", first, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	log := &syncBuffer{}
	kept := make(chan struct{})
	go func() { defer close(kept); Keep(ctx, store, c.Spec.ID, log) }()
	defer func() { cancel(); <-kept }()

	if err := syscall.Kill(first.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	waitUntil(t, "a new receiver", 10*time.Second, func() bool {
		a, err := readAddress(dir)
		return err == nil && a.PID != first.PID && receiverAlive(dir)
	})
	t.Logf("restarted %v after the kill", time.Since(killed).Round(time.Millisecond))
	waitUntil(t, "Keep to say so", 5*time.Second, func() bool {
		return strings.Contains(log.String(), c.Spec.ID+" the receiver was not running: restarted")
	})
	second, _ := readAddress(dir)
	if second.Address != first.Address {
		t.Errorf("the new receiver listens at %s, the links at %s", second.Address, first.Address)
	}

	// The link paused: the receiver leaves by itself, and stays gone.
	if err := store.Pause(c.Spec.ID, owner, ""); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the receiver to leave", 15*time.Second, func() bool { return syscall.Kill(second.PID, 0) != nil })
	time.Sleep(3 * keepEvery)
	if a, err := readAddress(dir); err == nil || !os.IsNotExist(err) {
		t.Errorf("a receiver was started for a paused link: %+v %v", a, err)
	}
}
