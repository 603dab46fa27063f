//go:build unix

package bgtasks

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

const (
	week = 7 * 24 * time.Hour
	day  = 24 * time.Hour
)

// createEnded registers a task that ended the given time ago.
func createEnded(t *testing.T, r *Registry, ago time.Duration) *Task {
	t.Helper()
	task := createRunning(t, r, Meta{Command: "make"})
	if err := r.WriteResult(task.ID, Result{State: Exited, Ended: time.Now().Add(-ago)}); err != nil {
		t.Fatal(err)
	}
	return task
}

func writeStamp(t *testing.T, r *Registry, text string) {
	t.Helper()
	if err := os.WriteFile(r.pruneStampPath(), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func stampAge(t *testing.T, r *Registry) time.Duration {
	t.Helper()
	b, err := os.ReadFile(r.pruneStampPath())
	if err != nil {
		t.Fatal(err)
	}
	sec, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		t.Fatalf("stamp %q: %v", b, err)
	}
	return time.Since(time.Unix(sec, 0))
}

func exists(t *testing.T, r *Registry, id string) bool {
	t.Helper()
	_, err := r.Get(id)
	if err != nil && !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	return err == nil
}

func TestPruneExpiredRemovesOnlyExpiredTasksOnceAnInterval(t *testing.T) {
	r := openTemp(t)
	old := createEnded(t, r, 10*day)
	recent := createEnded(t, r, day)
	running := createRunning(t, r, Meta{Command: "serve"})
	writeStamp(t, r, strconv.FormatInt(time.Now().Add(-2*time.Hour).Unix(), 10)+"\n")

	expired, err := r.PruneExpired(week, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(expired.Tasks, ",") != old.ID {
		t.Fatalf("removed %v, want only %s", expired.Tasks, old.ID)
	}
	if !exists(t, r, recent.ID) || !exists(t, r, running.ID) || exists(t, r, old.ID) {
		t.Fatal("the wrong tasks are left")
	}
	if age := stampAge(t, r); age > time.Minute {
		t.Fatalf("stamp is %v old after a prune, want now", age)
	}

	// Within the interval nothing is removed, even what has expired since.
	older := createEnded(t, r, 30*day)
	if expired, err := r.PruneExpired(week, time.Hour); err != nil || len(expired.Tasks) != 0 {
		t.Fatalf("second prune within the hour removed %v (%v)", expired.Tasks, err)
	}
	if !exists(t, r, older.ID) {
		t.Fatal("a task was removed before the interval was over")
	}
}

// A registry's first use only starts the clock: nobody upgrading hangdog
// loses a task the moment they next run a command.
func TestPruneExpiredStartsTheClockOnFirstUse(t *testing.T) {
	for name, stamp := range map[string]string{
		"no stamp":          "",
		"damaged stamp":     "yesterday\n",
		"stamp from future": strconv.FormatInt(time.Now().Add(30*day).Unix(), 10),
	} {
		r := openTemp(t)
		old := createEnded(t, r, 10*day)
		if stamp != "" {
			writeStamp(t, r, stamp)
		}
		expired, err := r.PruneExpired(week, time.Hour)
		if err != nil || len(expired.Tasks) != 0 {
			t.Fatalf("%s: removed %v (%v), want nothing", name, expired.Tasks, err)
		}
		if !exists(t, r, old.ID) {
			t.Fatalf("%s: the old task was removed", name)
		}
		if age := stampAge(t, r); age < 0 || age > time.Minute {
			t.Fatalf("%s: stamp is %v old, want now", name, age)
		}
	}
}

func TestPruneExpiredKeepsEverythingWhenKeepIsZero(t *testing.T) {
	r := openTemp(t)
	old := createEnded(t, r, 1000*day)
	writeStamp(t, r, "1\n")
	if expired, err := r.PruneExpired(0, time.Hour); err != nil || len(expired.Tasks) != 0 {
		t.Fatalf("removed %v (%v) with keep 0", expired.Tasks, err)
	}
	if !exists(t, r, old.ID) {
		t.Fatal("keep 0 removed a task")
	}
}

// While another process holds the stamp's lock, it is pruning: a second
// pruner leaves at once instead of waiting or racing it.
func TestPruneExpiredLeavesTheRegistryToAPruneUnderWay(t *testing.T) {
	r := openTemp(t)
	old := createEnded(t, r, 10*day)
	writeStamp(t, r, "1\n")
	other, err := os.OpenFile(r.pruneStampPath(), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := unix.Flock(int(other.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	if expired, err := r.PruneExpired(week, time.Hour); err != nil || len(expired.Tasks) != 0 {
		t.Fatalf("removed %v (%v) while another prune held the lock", expired.Tasks, err)
	}
	if !exists(t, r, old.ID) {
		t.Fatal("the task was removed under another pruner")
	}
	if b, _ := os.ReadFile(r.pruneStampPath()); string(b) != "1\n" {
		t.Fatalf("stamp rewritten to %q under another pruner", b)
	}
}

func TestPruneExpiredReportsAStampItCannotOpen(t *testing.T) {
	r := openTemp(t)
	// A directory where the stamp belongs fails the open even for root.
	if err := os.Mkdir(r.pruneStampPath(), 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := r.PruneExpired(week, time.Hour)
	if err == nil || !strings.Contains(err.Error(), "open "+r.pruneStampPath()) {
		t.Fatalf("error = %v, want one naming the stamp", err)
	}
}
