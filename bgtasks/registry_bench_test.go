package bgtasks

import (
	"os"
	"strings"
	"testing"
)

// A long-lived home has a long event log; appending and reading recent
// events must not get slower with it.
func benchmarkRegistryWithEvents(b *testing.B, n int) *Registry {
	b.Helper()
	r, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	tail := strings.Repeat("some output line\n", 10)
	for range n {
		if _, err := r.AppendEvent(Event{Kind: EventExited, TaskID: "t1", Command: "make", Tail: tail}); err != nil {
			b.Fatal(err)
		}
	}
	return r
}

func BenchmarkAppendEventTo10kLog(b *testing.B) {
	r := benchmarkRegistryWithEvents(b, 10000)
	for b.Loop() {
		if _, err := r.AppendEvent(Event{Kind: EventWarning, TaskID: "t2"}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUndeliveredFrom10kLog(b *testing.B) {
	r := benchmarkRegistryWithEvents(b, 10000)
	last := benchmarkLastSeq(b, r)
	if err := r.MarkDelivered("bench", last-5); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		evs, err := r.Undelivered("bench")
		if err != nil || len(evs) != 5 {
			b.Fatalf("%d events, %v", len(evs), err)
		}
	}
}

func benchmarkLastSeq(b *testing.B, r *Registry) int64 {
	last, err := r.LastEventSeq()
	if err != nil || last == 0 {
		b.Fatal(last, err)
	}
	return last
}

func BenchmarkCreate(b *testing.B) {
	r, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := r.Create(Meta{Command: "make", Mode: Background}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkList200Tasks(b *testing.B) {
	r, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	for i := range 200 {
		t, err := r.Create(Meta{Command: "make", Mode: Background})
		if err != nil {
			b.Fatal(err)
		}
		if i%2 == 0 {
			if err := r.WriteResult(t.ID, Result{State: Exited}); err != nil {
				b.Fatal(err)
			}
		}
	}
	for b.Loop() {
		tasks, err := r.List()
		if err != nil || len(tasks) != 200 {
			b.Fatalf("%d tasks, %v", len(tasks), err)
		}
	}
}

// A home of 5,000 ended tasks and two running ones: `bg ls` shows the
// running ones and the 20 newest ended (Recent), `bg ls --all` all (List).
func benchmarkRegistryWithEndedTasks(b *testing.B) *Registry {
	b.Helper()
	r, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	for i := range 5002 {
		t, err := r.Create(Meta{Command: "make", Mode: Background, State: Running, SupervisorPID: os.Getpid()})
		if err != nil {
			b.Fatal(err)
		}
		if i != 10 && i != 5001 {
			if err := r.WriteResult(t.ID, Result{State: Exited}); err != nil {
				b.Fatal(err)
			}
		}
	}
	return r
}

func BenchmarkRecent5000Ended(b *testing.B) {
	r := benchmarkRegistryWithEndedTasks(b)
	for b.Loop() {
		tasks, more, err := r.Recent(nil, 20)
		if err != nil || len(tasks) != 22 || !more {
			b.Fatalf("%d tasks, more %v, %v", len(tasks), more, err)
		}
	}
}

func BenchmarkList5000Ended(b *testing.B) {
	r := benchmarkRegistryWithEndedTasks(b)
	for b.Loop() {
		tasks, err := r.List()
		if err != nil || len(tasks) != 5002 {
			b.Fatalf("%d tasks, %v", len(tasks), err)
		}
	}
}

func BenchmarkLastEventSeqOf100kLog(b *testing.B) {
	r := benchmarkRegistryWithEvents(b, 100000)
	for b.Loop() {
		if last, err := r.LastEventSeq(); err != nil || last != 100000 {
			b.Fatal(last, err)
		}
	}
}

func BenchmarkEventsAfterCursorOf100kLog(b *testing.B) {
	r := benchmarkRegistryWithEvents(b, 100000)
	for b.Loop() {
		if evs, err := r.Events(99900); err != nil || len(evs) != 100 {
			b.Fatal(len(evs), err)
		}
	}
}
