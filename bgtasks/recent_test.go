package bgtasks

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"
)

// Recent reads the newest ended tasks only, found by when their result
// files were written; whatever the order tasks ended in, the order their
// results were written in and the scope, it lists what List does, cut.
func TestRecentListsWhatListDoes(t *testing.T) {
	r := openTemp(t)
	rng := rand.New(rand.NewPCG(3, 4))
	base := time.Now().Add(-100 * time.Hour)
	for i := range 300 {
		task, err := r.Create(Meta{Command: "make", Mode: Background, Project: fmt.Sprint("p", i%3)})
		if err != nil {
			t.Fatal(err)
		}
		if i%50 == 7 {
			// Live: its supervisor is this test process.
			task.Meta.State, task.SupervisorPID = Running, os.Getpid()
			if err := r.WriteMeta(task.Meta); err != nil {
				t.Fatal(err)
			}
			continue
		}
		// Tasks end in any order, and a result is written a little after
		// its task ended, or long after (a supervisor that was stopped).
		ended := base.Add(time.Duration(rng.IntN(100*3600)) * time.Second)
		if err := r.WriteResult(task.ID, Result{State: Exited, Ended: ended}); err != nil {
			t.Fatal(err)
		}
		written := ended.Add(time.Duration(rng.IntN(5000)) * time.Millisecond)
		if i%40 == 3 {
			written = ended.Add(time.Duration(rng.IntN(50)) * time.Hour)
		}
		if err := os.Chtimes(r.ResultPath(task.ID), written, written); err != nil {
			t.Fatal(err)
		}
	}
	all, err := r.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 300 {
		t.Fatalf("List: %d tasks, want 300", len(all))
	}
	checkRecent(t, r, all)
}

// Recent reads every task without a result, so a task whose supervisor
// died is found lost, recorded once and listed with the newest ended,
// however many ended tasks the home keeps.
func TestRecentReconcilesRunningTasks(t *testing.T) {
	r := openTemp(t)
	sup := startSupervisorStandIn(t)
	ticks, err := ProcStartTicks(sup.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	dying := createWithSupervisor(t, r, sup.Process.Pid, ticks)
	for range 30 {
		task, err := r.Create(Meta{Command: "true", Mode: Background})
		if err != nil {
			t.Fatal(err)
		}
		if err := r.WriteResult(task.ID, Result{State: Exited}); err != nil {
			t.Fatal(err)
		}
	}
	_ = sup.Process.Kill()
	_ = sup.Wait()
	tasks, more, err := r.Recent(nil, 3)
	if err != nil || len(tasks) != 3 || !more {
		t.Fatalf("Recent(nil, 3) = %d tasks, more %v, %v", len(tasks), more, err)
	}
	if tasks[0].ID != dying.ID || tasks[0].State() != Lost {
		t.Fatalf("first listed %s %s; want %s lost", tasks[0].ID, tasks[0].State(), dying.ID)
	}
	if _, _, err := r.Recent(nil, 3); err != nil {
		t.Fatal(err)
	}
	if n := len(lostEvents(t, r, dying.ID)); n != 1 {
		t.Fatalf("%d lost events for %s, want 1", n, dying.ID)
	}
}

// checkRecent compares Recent with List, filtered and cut, for two scopes
// and several counts of ended tasks.
func checkRecent(t *testing.T, r *Registry, all []*Task) {
	t.Helper()
	for _, project := range []string{"", "p1"} {
		keep := func(t *Task) bool { return project == "" || t.Project == project }
		for _, n := range []int{0, 1, 5, 20, 99, 250, AllEnded} {
			var want []string
			wantMore, ended := false, 0
			for _, task := range all {
				if !keep(task) {
					continue
				}
				if task.State().Ended() {
					if ended++; n != AllEnded && ended > n {
						wantMore = true
						continue
					}
				}
				want = append(want, task.ID)
			}
			tasks, more, err := r.Recent(keep, n)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, task := range tasks {
				got = append(got, task.ID)
			}
			if !slices.Equal(got, want) || wantMore && !more {
				t.Fatalf("project %q, %d ended: Recent gave %v (more %v)\nwant %v (more %v)", project, n, got, more, want, wantMore)
			}
		}
	}
}

func listAll(t *testing.T, r *Registry) []*Task {
	t.Helper()
	all, err := r.List()
	if err != nil {
		t.Fatal(err)
	}
	return all
}

// The ended mark lets a listing look at the newest tasks only; whatever
// happens below it — a task that ends late, a damaged mark, a mark past
// the counter, a counter lost — Recent still lists what List does, and no
// id below the mark is handed out again.
func TestRecentWithTheEndedMark(t *testing.T) {
	r := openTemp(t)
	base := time.Now().Add(-1000 * time.Hour)
	const n = 2*markKeepsAbove + 200
	var longLived *Task
	for i := range n {
		task, err := r.Create(Meta{Command: "make", Mode: Background, Project: fmt.Sprint("p", i%3)})
		if err != nil {
			t.Fatal(err)
		}
		if i == 4 {
			task.Meta.State, task.SupervisorPID = Running, os.Getpid()
			if err := r.WriteMeta(task.Meta); err != nil {
				t.Fatal(err)
			}
			longLived = task
			continue
		}
		// Tasks end in about the order they started, as they mostly do.
		ended := base.Add(time.Duration(i)*time.Minute + time.Duration(i%7)*time.Hour)
		if err := r.WriteResult(task.ID, Result{State: Exited, Ended: ended}); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(r.ResultPath(task.ID), ended, ended); err != nil {
			t.Fatal(err)
		}
	}
	all := listAll(t, r)
	checkRecent(t, r, all) // the first listing writes the mark
	var m endedMark
	if err := readJSON(r.endedMarkPath(), &m); err != nil {
		t.Fatal(err)
	}
	if m.Through != n-markKeepsAbove || !slices.Equal(m.Live, []uint64{5}) {
		t.Fatalf("mark %+v; want through %d, t5 live", m, n-markKeepsAbove)
	}
	checkRecent(t, r, all) // by the mark

	// The long-lived task below the mark ends: the newest ended of all.
	if err := r.WriteResult(longLived.ID, Result{State: Exited}); err != nil {
		t.Fatal(err)
	}
	tasks, _, err := r.Recent(nil, 1)
	if err != nil || len(tasks) != 1 || tasks[0].ID != longLived.ID {
		t.Fatalf("Recent(nil, 1) after %s ended: %v, %v", longLived.ID, tasks, err)
	}
	checkRecent(t, r, listAll(t, r))

	for _, bad := range []string{"{\"through\": 4", `{"through": 1000000, "newest": "2020-01-01T00:00:00Z"}`} {
		if err := os.WriteFile(r.endedMarkPath(), []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		checkRecent(t, r, listAll(t, r))
	}

	// A lost counter, and every task from just below the mark up removed:
	// the next id still goes past the mark.
	checkRecent(t, r, listAll(t, r)) // a good mark again
	if err := readJSON(r.endedMarkPath(), &m); err != nil || m.Through != n-markKeepsAbove {
		t.Fatalf("mark %+v, %v", m, err)
	}
	for i := m.Through - 5; i <= n; i++ {
		if err := r.Remove(fmt.Sprint("t", i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(r.counterPath()); err != nil {
		t.Fatal(err)
	}
	task, err := r.Create(Meta{Command: "make", Mode: Background})
	if err != nil {
		t.Fatal(err)
	}
	if num, _ := taskNumber(task.ID); num <= m.Through {
		t.Fatalf("new task %s, at or below the mark %d", task.ID, m.Through)
	}
	checkRecent(t, r, listAll(t, r))
}
