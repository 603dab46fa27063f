package watch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
)

// kill -9 between reserving a fire and delivering it: after the restart
// the event is delivered once and the fires used are right.
func TestCrashBetweenReserveAndDeliver(t *testing.T) {
	s := newStore(t)
	path := filepath.Join(t.TempDir(), "f.txt")
	writeFile(t, path, "0")
	c := create(t, s, &Request{Kind: KindFile, Target: path}, "o")
	id := c.Spec.ID
	setSpec(t, s, id, func(sp *Spec) { sp.Interval = 50 * time.Millisecond })
	writeFile(t, path, "1")
	cmd := helper(t, s.reg.Home(), "run-crash-after-reserve", id)
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("helper was not killed at the reservation: %v\n%s", err, out)
	}
	st := state(t, s, id)
	if st.FiresUsed != 1 || len(st.Pending) != 1 {
		t.Fatalf("after the crash: fires %d, pending %d; want the fire reserved and pending", st.FiresUsed, len(st.Pending))
	}
	if n := len(events(t, s, id, bgtasks.EventWatchFired)); n != 0 {
		t.Fatalf("%d events before delivery", n)
	}
	// Restart: it delivers the pending fire, once.
	cmd = helper(t, s.reg.Home(), "run", id)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the pending fire", 10*time.Second, func() bool { return len(events(t, s, id, bgtasks.EventWatchFired)) == 1 })
	time.Sleep(300 * time.Millisecond) // more checks: nothing new
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if st := state(t, s, id); st.FiresUsed != 1 || len(st.Pending) != 0 {
		t.Errorf("after the restart: fires %d pending %d; want 1 and 0", st.FiresUsed, len(st.Pending))
	}
	if n := len(events(t, s, id, bgtasks.EventWatchFired)); n != 1 {
		t.Errorf("%d fire events, want exactly 1", n)
	}

	// A crash after the append but before the state settled: the restart
	// finds the dedupe key in the log and does not deliver again.
	st = state(t, s, id)
	ev := events(t, s, id, bgtasks.EventWatchFired)[0]
	ev.Seq = 0
	st.Pending = []bgtasks.Event{ev}
	if err := writeJSON(filepath.Join(s.watcherDir(id), "state.json"), st); err != nil {
		t.Fatal(err)
	}
	r := &Runner{Store: s, ID: id}
	if err := r.deliverPending(); err != nil {
		t.Fatal(err)
	}
	if n := len(events(t, s, id, bgtasks.EventWatchFired)); n != 1 {
		t.Errorf("a fire already in the log was delivered again: %d events", n)
	}
}

// Two consumers each get every fire once, as task events are delivered.
func TestTwoConsumersEachGetEveryFireOnce(t *testing.T) {
	s := newStore(t)
	path := filepath.Join(t.TempDir(), "f.txt")
	writeFile(t, path, "0")
	for _, c := range []string{"one", "two"} {
		if _, err := s.reg.Undelivered(c); err != nil { // register
			t.Fatal(err)
		}
	}
	c := create(t, s, &Request{Kind: KindFile, Target: path}, "o")
	r := &Runner{Store: s, ID: c.Spec.ID}
	got := map[string][]string{}
	take := func(consumer string) {
		evs, err := s.reg.Undelivered(consumer)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			got[consumer] = append(got[consumer], e.DedupeKey)
		}
		if len(evs) > 0 {
			if err := s.reg.MarkDelivered(consumer, evs[len(evs)-1].Seq); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i := 1; i <= 3; i++ {
		writeFile(t, path, fmt.Sprint(i))
		tick(t, r)
		take("one")
		if i != 2 {
			take("two") // "two" reads less often
		}
	}
	take("one")
	take("two")
	want := fmt.Sprint([]string{c.Spec.ID + ":fire:1", c.Spec.ID + ":fire:2", c.Spec.ID + ":fire:3"})
	for _, who := range []string{"one", "two"} {
		if fmt.Sprint(got[who]) != want {
			t.Errorf("consumer %s got %v, want %s", who, got[who], want)
		}
	}
}

// 20 processes create, pause and resume at once: nothing is lost.
func TestConcurrentCreatePauseResumeProcesses(t *testing.T) {
	s := newStore(t)
	dir := t.TempDir()
	const n = 20
	var wg sync.WaitGroup
	ids := make([]string, n)
	errs := make([]error, n)
	for i := range n {
		path := filepath.Join(dir, fmt.Sprintf("f%d", i))
		writeFile(t, path, "x")
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Owners of 5 watchers each stay under the per-owner cap.
			out, err := helper(t, s.reg.Home(), "create-pause-resume", path+"|owner"+fmt.Sprint(i%4)).CombinedOutput()
			ids[i], errs[i] = strings.TrimSpace(string(out)), err
			if err != nil {
				errs[i] = fmt.Errorf("%v: %s", err, out)
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	ws, err := s.List(bgtasks.Scope{All: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != n {
		t.Fatalf("%d watchers stored, want %d", len(ws), n)
	}
	sort.Strings(ids)
	seen := map[string]bool{}
	for _, w := range ws {
		seen[w.Spec.ID] = true
		if !w.State.Paused || w.State.Reason != "final" || !w.State.Baselined {
			t.Errorf("%s: paused=%v reason=%q baselined=%v; every process's last pause must be kept", w.Spec.ID, w.State.Paused, w.State.Reason, w.State.Baselined)
		}
	}
	for _, id := range ids {
		if !seen[id] {
			t.Errorf("watcher %s, created by a process, is missing", id)
		}
	}
}

func TestValidationNamesFieldValueAndFormWritesNothing(t *testing.T) {
	s := newStore(t)
	path := filepath.Join(t.TempDir(), "f")
	writeFile(t, path, "x")
	future := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	cases := []struct {
		q    Request
		want []string
	}{
		{Request{Kind: KindHTTP, Target: "http://127.0.0.1:1/", IntervalSeconds: 30}, []string{"interval_seconds", `"30"`, "at least 1m0s"}},
		{Request{Kind: KindFile, Target: path, IntervalSeconds: 0.5}, []string{"interval_seconds", "at least 1s"}},
		{Request{Kind: KindFile, Target: path, ExpiresAt: "2026-12-01"}, []string{"expires_at", `"2026-12-01"`, "with a zone"}},
		{Request{Kind: KindFile, Target: path, ExpiresAt: "2026-12-01T10:00:00"}, []string{"expires_at", "with a zone"}},
		{Request{Kind: KindFile, Target: path, ExpiresAt: "tomorrow at 5"}, []string{"expires_at", "free text"}},
		{Request{Kind: KindFile, Target: path, ExpiresAt: "2020-01-01T00:00:00Z"}, []string{"expires_at", "future"}},
		{Request{Kind: KindFile, Target: path, CooldownSeconds: ptr(-1.0)}, []string{"cooldown_seconds", `"-1"`, "0 or more"}},
		{Request{Kind: KindFile, Target: path, MaxFires: ptr(0)}, []string{"max_fires", `"0"`, "unlimited", "owner"}},
		{Request{Kind: KindFile, Target: path, MaxFires: ptr(101)}, []string{"max_fires", `"101"`, "1 to 100"}},
		{Request{Kind: "ftp", Target: path}, []string{"kind", `"ftp"`, "file, http"}},
		{Request{Kind: KindFile, Target: path, Check: CheckAbove, Value: "lots"}, []string{"value", `"lots"`, "number"}},
		{Request{Kind: KindFile, Target: path, Check: CheckMatches, Value: "("}, []string{"value", "regular expression"}},
		{Request{Kind: KindFile, Target: path, Path: "a..b"}, []string{"path", "[index]"}},
		{Request{Kind: KindProcess, Target: "nginx"}, []string{"target", "pid:N"}},
		{Request{Kind: KindFile, Target: filepath.Join(path, "nope")}, []string{"nothing was created"}},
	}
	for _, c := range cases {
		_, err := s.Create(t.Context(), &c.q, "sess", "")
		if err == nil {
			t.Errorf("%+v was accepted", c.q)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%+v: %q does not say %q", c.q, err, w)
			}
		}
	}
	if ents, _ := os.ReadDir(s.dir); len(ents) != 0 {
		t.Errorf("refused requests wrote %d entries under watchers/", len(ents))
	}
	// Accepted forms.
	if _, err := s.Create(t.Context(), &Request{Kind: KindFile, Target: path, ExpiresAt: future, MaxFires: ptr(100), CooldownSeconds: ptr(0.0)}, "sess", ""); err != nil {
		t.Error(err)
	}
	if _, err := s.Create(t.Context(), &Request{Kind: KindFile, Target: path, MaxFires: ptr(0)}, "", ""); err != nil {
		t.Errorf("max_fires 0 without an owner: %v", err)
	}
	if _, err := ParseExpiry("2026-12-01T19:00+01:00"); err != nil {
		t.Error(err)
	}
}

func TestOwnerOnlyAndPerOwnerCap(t *testing.T) {
	s := newStore(t)
	path := filepath.Join(t.TempDir(), "f")
	writeFile(t, path, "x")
	var ids []string
	for range DefaultLimits().MaxActivePerOwner {
		ids = append(ids, create(t, s, &Request{Kind: KindFile, Target: path}, "a").Spec.ID)
	}
	_, err := s.Create(t.Context(), &Request{Kind: KindFile, Target: path}, "a", "")
	if err == nil || !strings.Contains(err.Error(), "at most 10 active") {
		t.Fatalf("11th active watcher: %v", err)
	}
	create(t, s, &Request{Kind: KindFile, Target: path}, "b") // another owner is not counted
	for _, op := range []func() error{
		func() error { return s.Pause(ids[0], "b", "") },
		func() error { _, err := s.Resume(ids[0], "b"); return err },
		func() error { _, err := s.Delete(ids[0], "b"); return err },
		func() error { _, err := s.Get(ids[0], "b"); return err },
		func() error { return s.Pause(ids[0], "", "") },
	} {
		if err := op(); !errors.Is(err, ErrNotFound) {
			t.Errorf("another owner's operation: %v, want not found", err)
		}
	}
	if err := s.Pause(ids[0], "a", ""); err != nil {
		t.Fatal(err)
	}
	create(t, s, &Request{Kind: KindFile, Target: path}, "a") // a slot freed
	if _, err := s.Resume(ids[0], "a"); err == nil {
		t.Error("resume past the per-owner cap was allowed")
	}
	if _, err := s.Delete(ids[1], "a"); err != nil {
		t.Fatal(err)
	}
	w, err := s.Resume(ids[0], "a")
	if err != nil || w.State.Paused || w.State.Reason != "" {
		t.Fatalf("resume: %v %+v", err, w)
	}
	if _, err := s.Get(ids[1], "a"); !errors.Is(err, ErrNotFound) {
		t.Errorf("deleted watcher: %v", err)
	}
}

func TestResumeKeepsFiresUsed(t *testing.T) {
	s := newStore(t)
	path := filepath.Join(t.TempDir(), "f")
	writeFile(t, path, "0")
	c := create(t, s, &Request{Kind: KindFile, Target: path, MaxFires: ptr(3)}, "a")
	r := &Runner{Store: s, ID: c.Spec.ID}
	writeFile(t, path, "1")
	tick(t, r)
	_ = s.Pause(c.Spec.ID, "a", "")
	w, err := s.Resume(c.Spec.ID, "a")
	if err != nil || w.State.FiresUsed != 1 {
		t.Fatalf("resume: %v, fires used %d; want 1 kept", err, w.State.FiresUsed)
	}
}

func TestWakesPerHourCapPauses(t *testing.T) {
	s := newStore(t)
	path := filepath.Join(t.TempDir(), "f")
	writeFile(t, path, "0")
	c := create(t, s, &Request{Kind: KindFile, Target: path, MaxWakesPerHour: ptr(2)}, "a")
	r := &Runner{Store: s, ID: c.Spec.ID}
	for i := 1; i <= 3; i++ {
		writeFile(t, path, fmt.Sprint(i))
		tick(t, r)
	}
	st := state(t, s, c.Spec.ID)
	if st.FiresUsed != 2 || !st.Paused || !strings.Contains(st.Reason, "more than 2 wakes in an hour") {
		t.Fatalf("state %+v: want 2 fires then a pause naming the cap", st)
	}
}

func TestJitterNeverOnTheHourOrHalfHour(t *testing.T) {
	base := time.Date(2026, 12, 1, 9, 55, 0, 0, time.UTC)
	seen := map[time.Duration]bool{}
	for i := range 2000 {
		now := base.Add(time.Duration(i) * 7 * time.Second)
		next := nextCheck(now, 5*time.Minute, true)
		if next.Minute()%30 == 0 {
			t.Fatalf("from %v the next check is %v: on the hour or half hour", now, next)
		}
		if d := next.Sub(now); d < 4*time.Minute+30*time.Second || d > 5*time.Minute+30*time.Second+2*time.Minute { // ±10 %, plus at most a pushed minute
			t.Fatalf("from %v next is %v later", now, d)
		}
		seen[next.Sub(now).Round(time.Second)] = true
	}
	if len(seen) < 50 {
		t.Errorf("only %d distinct delays: not jittered", len(seen))
	}
}
