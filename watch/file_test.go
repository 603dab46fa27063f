package watch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hangdog/hangdog/internal/safefile"
	"github.com/hangdog/hangdog/internal/syncbuf"

	"github.com/hangdog/hangdog/bgtasks"
)

func TestFileThreeChangesFireThreeSameContentNone(t *testing.T) {
	s := newStore(t)
	path := filepath.Join(t.TempDir(), "f.txt")
	writeFile(t, path, "v0")
	c := create(t, s, &Request{Kind: KindFile, Target: path}, "sess-a")
	if c.Baseline != "currently v0" {
		t.Errorf("baseline = %q, want the first check's content", c.Baseline)
	}
	r := &Runner{Store: s, ID: c.Spec.ID}
	tick(t, r) // unchanged since the baseline
	for _, v := range []string{"v1", "v2", "v3"} {
		writeFile(t, path, v)
		tick(t, r)
		writeFile(t, path, v) // the same content again
		tick(t, r)
	}
	fired := events(t, s, c.Spec.ID, bgtasks.EventWatchFired)
	if len(fired) != 3 {
		t.Fatalf("fired %d events, want 3: %+v", len(fired), fired)
	}
	for i, e := range fired {
		if e.Owner != "sess-a" || !strings.Contains(e.Payload, "untrusted") || !strings.HasSuffix(e.Payload, "v"+string(rune('1'+i))) {
			t.Errorf("event %d = %+v: want owner sess-a and the new content marked untrusted", i, e)
		}
		if e.DedupeKey == "" || (i > 0 && e.DedupeKey == fired[i-1].DedupeKey) {
			t.Errorf("event %d dedupe key %q: want one per fire", i, e.DedupeKey)
		}
	}
	if st := state(t, s, c.Spec.ID); st.FiresUsed != 3 || st.QuietChecks != 4 {
		t.Errorf("fires used %d, quiet checks %d; want 3 and 4", st.FiresUsed, st.QuietChecks)
	}
}

func TestFileCooldownAdvancesStateFiresNothing(t *testing.T) {
	s := newStore(t)
	path := filepath.Join(t.TempDir(), "f.txt")
	writeFile(t, path, "a")
	c := create(t, s, &Request{Kind: KindFile, Target: path, CooldownSeconds: ptr(3600.0)}, "o")
	r := &Runner{Store: s, ID: c.Spec.ID}
	writeFile(t, path, "b")
	tick(t, r) // fires
	writeFile(t, path, "c")
	tick(t, r) // inside the cooldown
	if n := len(events(t, s, c.Spec.ID, bgtasks.EventWatchFired)); n != 1 {
		t.Fatalf("%d fires, want 1 (the second change is inside the cooldown)", n)
	}
	st := state(t, s, c.Spec.ID)
	if st.Hash != hashText("c") || st.FiresUsed != 1 {
		t.Errorf("state hash for %q, fires %d: the cooldown must advance the state and spend nothing", st.Value, st.FiresUsed)
	}
	// Once the cooldown is over, writing "c" again is no change: the state
	// had moved on.
	r.Now = func() time.Time { return time.Now().Add(2 * time.Hour) }
	tick(t, r)
	if n := len(events(t, s, c.Spec.ID, bgtasks.EventWatchFired)); n != 1 {
		t.Errorf("%d fires after the cooldown with no new change, want 1", n)
	}
}

func TestFileMaxFiresPausesWithReason(t *testing.T) {
	s := newStore(t)
	path := filepath.Join(t.TempDir(), "f.txt")
	writeFile(t, path, "0")
	c := create(t, s, &Request{Kind: KindFile, Target: path, MaxFires: ptr(2)}, "o")
	r := &Runner{Store: s, ID: c.Spec.ID}
	writeFile(t, path, "1")
	if tick(t, r) {
		t.Fatal("stopped after the first fire")
	}
	writeFile(t, path, "2")
	if !tick(t, r) {
		t.Fatal("did not stop after the second of two fires")
	}
	writeFile(t, path, "3")
	tick(t, r)
	if n := len(events(t, s, c.Spec.ID, bgtasks.EventWatchFired)); n != 2 {
		t.Fatalf("%d fires, want 2", n)
	}
	ws, _ := s.List(bgtasks.Scope{Owner: "o"})
	if len(ws) != 1 || !ws[0].State.Paused || !strings.Contains(ws[0].State.Reason, "used all 2 fires") {
		t.Fatalf("list = %+v: want paused with the budget as the reason", ws[0].State)
	}
	if _, err := s.Resume(c.Spec.ID, "o"); err == nil || !strings.Contains(err.Error(), "max_fires") {
		t.Errorf("resume of a spent watcher: %v, want a refusal naming max_fires", err)
	}
	paused := events(t, s, c.Spec.ID, bgtasks.EventWatchPaused)
	if len(paused) != 1 {
		t.Errorf("%d pause events, want 1", len(paused))
	}
}

func TestFileExpiryPausesWithoutFiringSaysSoOnce(t *testing.T) {
	s := newStore(t)
	path := filepath.Join(t.TempDir(), "f.txt")
	writeFile(t, path, "0")
	exp := time.Now().Add(2 * time.Second).UTC().Format(time.RFC3339)
	c := create(t, s, &Request{Kind: KindFile, Target: path, ExpiresAt: exp}, "o")
	r := &Runner{Store: s, ID: c.Spec.ID, Now: func() time.Time { return time.Now().Add(time.Minute) }}
	writeFile(t, path, "changed after the expiry")
	if !tick(t, r) {
		t.Fatal("an expired watcher went on")
	}
	tick(t, r)
	tick(t, r)
	if n := len(events(t, s, c.Spec.ID, bgtasks.EventWatchFired)); n != 0 {
		t.Errorf("an expired watcher fired %d times: expiry is checked before the check runs", n)
	}
	exps := events(t, s, c.Spec.ID, bgtasks.EventWatchExpired)
	if len(exps) != 1 || !strings.Contains(exps[0].Reason, "without firing") {
		t.Fatalf("expiry events %+v: want exactly one saying it expired without firing", exps)
	}
	if st := state(t, s, c.Spec.ID); !st.Paused || !strings.Contains(st.Reason, "expired") {
		t.Errorf("state %+v: want paused with the expiry as reason", st)
	}
}

// The runner loop with inotify: a write is noticed without waiting for the
// (long) interval.
func TestFileRunnerUsesInotify(t *testing.T) {
	ir := startInotifyRunner(t, "0")
	s, c, r, path, ctx, cancel, done, log := ir.s, ir.c, ir.r, ir.path, ir.ctx, ir.cancel, ir.done, ir.log
	// Replace by rename, as editors do.
	writeFile(t, path+".tmp", "1")
	if err := renameFile(path+".tmp", path); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a fire from inotify", 5*time.Second, func() bool { return len(events(t, s, c.Spec.ID, bgtasks.EventWatchFired)) == 1 })
	// Pausing from elsewhere ends the loop at once.
	if err := s.Pause(c.Spec.ID, "o", ""); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		cancel()
		t.Fatal("the runner did not stop when its watcher was paused")
	}
	// Resumed and run again, deleting it ends the loop too.
	if _, err := s.Resume(c.Spec.ID, "o"); err != nil {
		t.Fatal(err)
	}
	go func() { done <- r.run(ctx) }()
	waitFor(t, "the runner to start again", 5*time.Second, func() bool { return strings.Count(log.String(), "watching") == 2 })
	if _, err := s.Delete(c.Spec.ID, "o"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		cancel()
		t.Fatal("the runner did not stop when its watcher was deleted")
	}
	cancel()
}

// inotifyRunner is a file watcher's runner loop started on a file whose
// content is given, with an interval so long that only inotify can wake it.
type inotifyRunner struct {
	s      *Store
	c      *Created
	r      *Runner
	path   string
	log    *syncBuffer
	ctx    context.Context
	cancel context.CancelFunc
	done   chan error // Run's return
}

func startInotifyRunner(t *testing.T, content string) *inotifyRunner {
	t.Helper()
	ir := &inotifyRunner{s: newStore(t), path: filepath.Join(t.TempDir(), "f.txt"), log: &syncBuffer{}, done: make(chan error, 1)}
	writeFile(t, ir.path, content)
	ir.c = create(t, ir.s, &Request{Kind: KindFile, Target: ir.path, IntervalSeconds: 1}, "o")
	setSpec(t, ir.s, ir.c.Spec.ID, func(sp *Spec) { sp.Interval = time.Hour })
	ir.r = &Runner{Store: ir.s, ID: ir.c.Spec.ID, Log: ir.log}
	ir.ctx, ir.cancel = context.WithCancel(context.Background())
	go func() { ir.done <- ir.r.run(ir.ctx) }()
	waitFor(t, "the runner to start", 5*time.Second, func() bool { return strings.Contains(ir.log.String(), "watching") })
	return ir
}

// syncBuffer: a process's output or a log read while it is written.
type syncBuffer = syncbuf.Buffer

// Without inotify a file watcher polls on its interval.
func TestFileRunnerPollsWithoutInotify(t *testing.T) {
	s := newStore(t)
	path := filepath.Join(t.TempDir(), "f.txt")
	writeFile(t, path, "0")
	c := create(t, s, &Request{Kind: KindFile, Target: path, IntervalSeconds: 1}, "o")
	r := &Runner{Store: s, ID: c.Spec.ID, noNotify: true}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- r.run(ctx) }()
	writeFile(t, path, "1")
	waitFor(t, "a fire from polling", 5*time.Second, func() bool { return len(events(t, s, c.Spec.ID, bgtasks.EventWatchFired)) == 1 })
	if st := state(t, s, c.Spec.ID); st.Checks < 2 {
		t.Errorf("checks %d", st.Checks)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// A file written in place in pieces (truncated, then written a line at a
// time, as a shell's `>` or a log does) fires once, on the whole text: a
// check run on the first inotify event would read it empty or half written.
// The pauses between pieces are well below writeSettle; before the settling,
// this fired on the empty file (seen in CI as a condition judged on
// nothing).
func TestFileRunnerWaitsForAWriteInPiecesToSettle(t *testing.T) {
	ir := startInotifyRunner(t, "build: running\n")
	s, c, path, cancel, done, log := ir.s, ir.c, ir.path, ir.cancel, ir.done, ir.log
	defer cancel()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	lines := []string{"build: failed\n", "ld: undefined reference to main\n", "exit 1\n"}
	for _, l := range lines {
		time.Sleep(writeSettle / 10) // far below it even on a loaded machine
		if _, err := f.WriteString(l); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a fire", 5*time.Second, func() bool { return len(events(t, s, c.Spec.ID, bgtasks.EventWatchFired)) >= 1 })
	time.Sleep(3 * writeSettle) // room for a second, wrong fire
	fired := events(t, s, c.Spec.ID, bgtasks.EventWatchFired)
	if len(fired) != 1 || !strings.HasSuffix(strings.TrimSpace(fired[0].Payload), "exit 1") {
		t.Errorf("fires %+v; want one, on the whole text\n%s", fired, log.String())
	}
	cancel()
	<-done
}

// Another user who can write the watched directory plants a symlink to
// one of the user's private files: the watcher does not follow it, so the
// file's content never goes into a fire. The user's own link is followed,
// and a create in a directory others can write says so. Real files and
// links; the planted link is given to uid 65534 (nobody), so the test runs
// as root.
func TestFileNeverFollowsAnotherUsersSymlink(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("giving a link to another user needs root")
	}
	const secret = "root:$6$Xy3secretHASH:19000:0:99999:7:::"
	private := filepath.Join(t.TempDir(), "shadow")
	writeFile(t, private, secret)
	if err := os.Chmod(private, 0o600); err != nil {
		t.Fatal(err)
	}
	shared := t.TempDir()
	if err := os.Chmod(shared, 0o1777); err != nil { // as /tmp is
		t.Fatal(err)
	}
	s := newStore(t)

	// A watcher on a file that other users can replace is told so.
	notes := filepath.Join(shared, "notes.txt")
	writeFile(t, notes, "v0")
	c := create(t, s, &Request{Kind: KindFile, Target: notes}, "o")
	if !strings.Contains(c.Warning, "every user can write "+shared) {
		t.Errorf("create in a 1777 directory: warning %q, want it to say every user can write %s", c.Warning, shared)
	}
	// The file is replaced by another user's link to the private file.
	if err := os.Remove(notes); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(private, notes); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(notes, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	r := &Runner{Store: s, ID: c.Spec.ID}
	tick(t, r)
	for _, e := range events(t, s, c.Spec.ID, bgtasks.EventWatchFired) {
		if strings.Contains(e.Payload, "secretHASH") {
			t.Fatalf("a fire holds the private file's content: %q", e.Payload)
		}
	}
	if st := state(t, s, c.Spec.ID); strings.Contains(st.Value, "secretHASH") || !strings.Contains(st.LastError, "owned by another user (uid 65534)") {
		t.Errorf("after the planted link: value %q, last error %q; want no content and the link refused", st.Value, st.LastError)
	}
	// Created on the planted link: refused, nothing created.
	if _, err := s.Create(context.Background(), &Request{Kind: KindFile, Target: notes}, "o", ""); err == nil || !strings.Contains(err.Error(), "owned by another user") {
		t.Errorf("create on another user's link: %v, want it refused", err)
	}

	// The user's own link (in a private directory: no warning) is followed.
	own := filepath.Join(t.TempDir(), "mine.txt")
	if err := os.Symlink(private, own); err != nil {
		t.Fatal(err)
	}
	c2 := create(t, s, &Request{Kind: KindFile, Target: own}, "o")
	if !strings.Contains(c2.Baseline, "secretHASH") || c2.Warning != "" {
		t.Errorf("the user's own link: baseline %q, warning %q; want the file read and no warning", c2.Baseline, c2.Warning)
	}
}

// A runner whose watcher's state.json is damaged stops (the watcher is
// listed as damaged and can only be removed), rather than erring on every
// check.
func TestRunnerStopsOnADamagedWatcher(t *testing.T) {
	s := newStore(t)
	path := filepath.Join(t.TempDir(), "f.txt")
	writeFile(t, path, "v0")
	c := create(t, s, &Request{Kind: KindFile, Target: path}, "o")
	if err := os.WriteFile(filepath.Join(s.watcherDir(c.Spec.ID), "state.json"), []byte(`{"checks": 3, "pa`), 0o600); err != nil {
		t.Fatal(err)
	}
	stop, err := (&Runner{Store: s, ID: c.Spec.ID}).Tick(context.Background())
	if !stop || err != nil {
		t.Errorf("a tick of a damaged watcher: stop %v, %v; want it to stop quietly", stop, err)
	}
	w, err := s.Get(c.Spec.ID, "o")
	if err != nil || !strings.Contains(w.Damaged, "state.json is damaged") || !w.State.Paused || w.Spec.Target != path {
		t.Errorf("the damaged watcher: %+v %v; want it listed as damaged with its spec", w, err)
	}
	if _, err := s.Resume(c.Spec.ID, "o"); !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "hangdog watch rm "+c.Spec.ID) {
		t.Errorf("resume of a damaged watcher: %v; want ErrDamaged saying how to remove it", err)
	}
	if _, err := s.Delete(c.Spec.ID, "other"); !errors.Is(err, ErrNotFound) {
		t.Errorf("delete by another owner: %v, want not found", err)
	}
	if _, err := s.Delete(c.Spec.ID, "o"); err != nil {
		t.Errorf("delete of a damaged watcher: %v", err)
	}
}

// A quiet check does not look for queued events when its Runner queued
// none (Runner.noPending), yet an event found queued at a check (queued by
// another process, say) is still delivered by that check.
func TestQueuedEventIsDeliveredThoughTheRunnerQueuedNone(t *testing.T) {
	s := newStore(t)
	path := filepath.Join(t.TempDir(), "f.txt")
	writeFile(t, path, "v0")
	c := create(t, s, &Request{Kind: KindFile, Target: path}, "o")
	r := &Runner{Store: s, ID: c.Spec.ID}
	tick(t, r)
	tick(t, r) // quiet: the Runner knows nothing is queued
	if !r.noPending {
		t.Fatal("after a quiet check the Runner does not know that nothing is queued")
	}
	ev := bgtasks.Event{Kind: bgtasks.EventWatchFired, WatcherID: c.Spec.ID, Owner: "o", DedupeKey: c.Spec.ID + ":other:1", Payload: "queued elsewhere"}
	if err := s.update(c.Spec.ID, func(_ *Spec, st *State) error { st.Pending = append(st.Pending, ev); return nil }); err != nil {
		t.Fatal(err)
	}
	tick(t, r) // quiet again
	if got := events(t, s, c.Spec.ID, bgtasks.EventWatchFired); len(got) != 1 || got[0].DedupeKey != ev.DedupeKey {
		t.Fatalf("events after the check: %+v, want the queued one", got)
	}
	if st := state(t, s, c.Spec.ID); len(st.Pending) != 0 {
		t.Errorf("still queued: %+v", st.Pending)
	}
}

// A quiet check's first look (its limits) takes neither the watcher's lock
// nor a read when the records are as the Runner's last check left them;
// a change another process makes (a pause: temp+rename) is still seen at
// the next check, and one that damages a file is too.
func TestQuietCheckLooksWithoutTheLockUntilAnotherProcessWrites(t *testing.T) {
	s := newStore(t)
	path := filepath.Join(t.TempDir(), "f.txt")
	writeFile(t, path, "v0")
	c := create(t, s, &Request{Kind: KindFile, Target: path}, "o")
	r := &Runner{Store: s, ID: c.Spec.ID}
	tick(t, r)
	tick(t, r)
	w, err := s.Get(c.Spec.ID, "o")
	if err != nil {
		t.Fatal(err)
	}
	// Another process holds the watcher's lock: the look must not wait.
	lock, err := os.OpenFile(filepath.Join(s.watcherDir(c.Spec.ID), "lock"), os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := safefile.Lock(lock); err != nil {
		t.Fatal(err)
	}
	looked := make(chan error, 1)
	go func() {
		_, snap, stop, err := r.limits()
		if err == nil && (stop || snap.Checks != w.State.Checks) {
			err = fmt.Errorf("stop %v, %d checks; want to go on after %d", stop, snap.Checks, w.State.Checks)
		}
		looked <- err
	}()
	select {
	case err := <-looked:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		safefile.Unlock(lock)
		t.Fatal("the first look of a quiet check waited for the watcher's lock")
	}
	safefile.Unlock(lock)
	other, err := OpenStore(s.Registry()) // as another process
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Pause(c.Spec.ID, "o", "test"); err != nil {
		t.Fatal(err)
	}
	if _, _, stop, err := r.limits(); !stop || err != nil {
		t.Fatalf("after another process paused it: stop %v, %v; want stop", stop, err)
	}
	if _, err := other.Resume(c.Spec.ID, "o"); err != nil {
		t.Fatal(err)
	}
	tick(t, r)
	if err := os.WriteFile(filepath.Join(s.watcherDir(c.Spec.ID), "state.json"), []byte(`{"checks": 3, "pa`), 0o600); err != nil {
		t.Fatal(err)
	}
	if stop, err := r.Tick(context.Background()); !stop || err != nil {
		t.Errorf("a tick once its state.json is damaged: stop %v, %v; want it to stop quietly", stop, err)
	}
}
