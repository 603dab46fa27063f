package mcpserver

import (
	"testing"

	"github.com/hangdog/hangdog/bgtasks"
)

func openTestRegistry(t *testing.T) *bgtasks.Registry {
	t.Helper()
	reg, err := bgtasks.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func appendEvents(t *testing.T, reg *bgtasks.Registry, n int) {
	t.Helper()
	for range n {
		if _, err := reg.AppendEvent(bgtasks.Event{Kind: bgtasks.EventExited, TaskID: "t1", Command: "true"}); err != nil {
			t.Fatal(err)
		}
	}
}

func seqsOf(evs []bgtasks.Event) []int64 {
	var s []int64
	for _, e := range evs {
		s = append(s, e.Seq)
	}
	return s
}

func equalSeqs(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func take(t *testing.T, d *deliveries, key string, want ...int64) {
	t.Helper()
	evs, err := d.take(key)
	if err != nil {
		t.Fatal(err)
	}
	if got := seqsOf(evs); !equalSeqs(got, want) {
		t.Fatalf("take(%s) = %v, want %v", key, got, want)
	}
}

func TestDeliveriesStartAtTheEndAndDeliverOnce(t *testing.T) {
	reg := openTestRegistry(t)
	appendEvents(t, reg, 2) // history before the session: not delivered
	d := newDeliveries(reg, "s1")
	if err := d.register(); err != nil {
		t.Fatal(err)
	}
	take(t, d, "a")
	appendEvents(t, reg, 2)
	take(t, d, "b", 3, 4)
	take(t, d, "c") // in flight: not offered again
	if err := d.written("b"); err != nil {
		t.Fatal(err)
	}
	take(t, d, "d")
	// A new session with the same name (a restarted harness) resumes after 4.
	d2 := newDeliveries(reg, "s1")
	take(t, d2, "e")
}

func TestDeliveriesNotWrittenAreOfferedAgainAfterARestart(t *testing.T) {
	reg := openTestRegistry(t)
	d := newDeliveries(reg, "s1")
	d.register()
	appendEvents(t, reg, 1)
	take(t, d, "a", 1)
	// The process dies before writing "a": a new one gets the event again.
	d2 := newDeliveries(reg, "s1")
	take(t, d2, "x", 1)
}

func TestDeliveriesCursorWaitsForEarlierResults(t *testing.T) {
	reg := openTestRegistry(t)
	d := newDeliveries(reg, "s1")
	d.register()
	appendEvents(t, reg, 1)
	take(t, d, "slow", 1)
	appendEvents(t, reg, 1)
	take(t, d, "fast", 2)
	if err := d.written("fast"); err != nil {
		t.Fatal(err)
	}
	// "slow" is not written yet: a crash now must repeat event 1, so the
	// durable cursor has not moved past it, even though 2 was written.
	take(t, newDeliveries(reg, "s1"), "after-crash", 1, 2)
	if err := d.written("slow"); err != nil {
		t.Fatal(err)
	}
	take(t, newDeliveries(reg, "s1"), "after-both")
}

func TestDeliveriesReleasedEventsComeBack(t *testing.T) {
	reg := openTestRegistry(t)
	d := newDeliveries(reg, "s1")
	d.register()
	appendEvents(t, reg, 2)
	take(t, d, "cancelled", 1, 2)
	d.release("cancelled")
	take(t, d, "next", 1, 2)
	if err := d.written("next"); err != nil {
		t.Fatal(err)
	}
	// A late write of the cancelled call settles nothing twice.
	if err := d.written("cancelled"); err != nil {
		t.Fatal(err)
	}
	take(t, newDeliveries(reg, "s1"), "restart")
}

func TestDeliveriesRejectBadConsumerName(t *testing.T) {
	d := newDeliveries(openTestRegistry(t), "bad name/..")
	if err := d.register(); err == nil {
		t.Error("a consumer name with a slash was accepted")
	}
}

func TestDefaultConsumerIsAValidUniqueName(t *testing.T) {
	reg := openTestRegistry(t)
	a, b := DefaultConsumer(), DefaultConsumer()
	if a == b {
		t.Errorf("two sessions got the same consumer %q", a)
	}
	if err := newDeliveries(reg, a).register(); err != nil {
		t.Errorf("default consumer %q rejected: %v", a, err)
	}
}
