package bgtasks

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// A log with events of every size, torn lines, blank lines, lines that are
// not events and garbage longer than any event: whatever the cursor,
// reading from it starts at the first event after it, and reading stops at
// the last.
func TestScanEventsFromEveryCursor(t *testing.T) {
	r := openTemp(t)
	rng := rand.New(rand.NewPCG(1, 2))
	junk := []string{
		`{"seq":99999,"time":"2026-11-29T10:0`, // torn
		"", "\x00\x00garbage", `{"kind":"exited"}`, `{"seq":3}`,
		strings.Repeat("y", 3*maxEventLine), // overlong garbage
	}
	var want []int64
	for i := range 400 {
		e := appendEvent(t, r, Event{Kind: EventExited, TaskID: "t1", Tail: strings.Repeat("o", rng.IntN(2*probeBlock))})
		want = append(want, e.Seq)
		if i%23 == 5 {
			f, err := os.OpenFile(r.eventsPath(), os.O_WRONLY|os.O_APPEND, 0o600)
			if err != nil {
				t.Fatal(err)
			}
			j := junk[rng.IntN(len(junk))]
			if rng.IntN(2) == 0 {
				j += "\n" // else the next append starts a fresh line
			}
			if _, err := f.WriteString(j); err != nil {
				t.Fatal(err)
			}
			f.Close()
		}
	}
	last := want[len(want)-1]
	errStop := errors.New("stop")
	for after := int64(0); after <= last+2; after++ {
		var first int64
		err := r.ScanEvents(after, func(e Event) error {
			first = e.Seq
			return errStop
		})
		switch {
		case after >= last && (err != nil || first != 0):
			t.Fatalf("ScanEvents(%d) at the end gave seq %d, %v; want nothing", after, first, err)
		case after < last && (!errors.Is(err, errStop) || first != after+1):
			t.Fatalf("ScanEvents(%d) started at seq %d (%v); want %d", after, first, err, after+1)
		}
	}
	for _, after := range []int64{0, 1, 57, last - 1} {
		got := eventSeqs(t, r, after)
		if len(got) != int(last-after) || got[0] != after+1 || got[len(got)-1] != last {
			t.Fatalf("Events(%d): %d events from %v; want %d", after, len(got), got[:min(3, len(got))], last-after)
		}
	}
}

func TestLastEventSeq(t *testing.T) {
	r := openTemp(t)
	if last, err := r.LastEventSeq(); err != nil || last != 0 {
		t.Fatalf("LastEventSeq on a new home = %d, %v; want 0", last, err)
	}
	for range 3 {
		appendEvent(t, r, Event{Kind: EventExited, TaskID: "t1", Tail: strings.Repeat("x", maxEventTail)})
	}
	f, err := os.OpenFile(r.eventsPath(), os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.Write(append(bytes.Repeat([]byte("z"), 2*scanBlock), '\n'))
	_, _ = f.WriteString(`{"seq":4,"time":"2026-11-29T10:0`) // a writer killed mid-line
	f.Close()
	if last, err := r.LastEventSeq(); err != nil || last != 3 {
		t.Fatalf("LastEventSeq past garbage and a torn line = %d, %v; want 3", last, err)
	}
	if e := appendEvent(t, r, Event{Kind: EventKilled, TaskID: "t2"}); e.Seq != 4 {
		t.Fatalf("the next event got seq %d, want 4", e.Seq)
	}
	if last, err := r.LastEventSeq(); err != nil || last != 4 {
		t.Fatalf("LastEventSeq = %d, %v; want 4", last, err)
	}
}
