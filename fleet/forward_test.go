package fleet_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/fleet"
	"github.com/hangdog/hangdog/fleet/autostart"
	"github.com/hangdog/hangdog/fleet/natstest"
	"github.com/hangdog/hangdog/internal/syncbuf"
)

// forwarder runs a Forwarder for reg until the returned stop is called.
func forwarder(t *testing.T, reg *bgtasks.Registry, urls string, log *syncbuf.Buffer) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	f := &fleet.Forwarder{Reg: reg, Config: fleet.Config{URLs: urls, Stream: "EV", Host: "box"}, Log: log}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := f.Run(ctx); err != nil {
			t.Errorf("forwarder: %v", err)
		}
	}()
	return func() { cancel(); wg.Wait() }
}

// streamSeqs reads the whole stream and returns the events' home seqs in
// the stream's order.
func streamSeqs(t *testing.T, urls string) []int64 {
	t.Helper()
	c, err := fleet.Connect(fleet.Config{URLs: urls, Stream: "EV"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := c.EnsureStream(ctx)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var seqs []int64
	for n := info.State.FirstSeq; n <= info.State.LastSeq && info.State.Msgs > 0; n++ {
		m, err := s.GetMsg(ctx, n)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		var msg fleet.Message
		if err := json.Unmarshal(m.Data, &msg); err != nil {
			t.Fatal(err)
		}
		if msg.Host != "box" || msg.HomeID == "" || m.Subject != fleet.Subject("box", msg.Event) || m.Header.Get(jetstream.MsgIDHeader) != fleet.MsgID(msg.HomeID, msg.Event) {
			t.Fatalf("message %d: subject %s, id %q, body %s", n, m.Subject, m.Header.Get(jetstream.MsgIDHeader), m.Data)
		}
		seqs = append(seqs, msg.Seq)
	}
	return seqs
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func appendEvents(t *testing.T, reg *bgtasks.Registry, n int) {
	t.Helper()
	for i := range n {
		if _, err := reg.AppendEvent(bgtasks.Event{Kind: bgtasks.EventExited, TaskID: fmt.Sprintf("t%d", i+1), Command: "true", Owner: "s1", Project: "/p"}); err != nil {
			t.Fatal(err)
		}
	}
}

func wantSeqs(t *testing.T, got []int64, n int) {
	t.Helper()
	if len(got) != n {
		t.Fatalf("the stream holds %d events, want %d: %v", len(got), n, got)
	}
	for i, s := range got {
		if s != int64(i+1) {
			t.Fatalf("stream event %d has seq %d: not each once, in order: %v", i, s, got)
		}
	}
}

// The forwarder waits out an outage of the only server: what the log
// got meanwhile is published when it is back, each event once, in order,
// and the cursor moves only past what the stream acknowledged.
func TestForwarderWaitsOutAnOutage(t *testing.T) {
	cl := natstest.StartT(t, 1)
	reg, err := bgtasks.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reg.Cursor(autostart.Consumer); err != nil { // as autostart.Ensure does
		t.Fatal(err)
	}
	var log syncbuf.Buffer
	stop := forwarder(t, reg, cl.URLs(), &log)
	defer stop()
	appendEvents(t, reg, 20)
	waitFor(t, "20 events published", func() bool { c, _ := reg.Cursor(autostart.Consumer); return c == 20 })
	cl.Kill(0)
	appendEvents(t, reg, 30)
	time.Sleep(time.Second)
	if c, _ := reg.Cursor(autostart.Consumer); c != 20 {
		t.Fatalf("the cursor moved to %d with the server down", c)
	}
	if err := cl.Restart(0); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "50 events published", func() bool { c, _ := reg.Cursor(autostart.Consumer); return c == 50 })
	wantSeqs(t, streamSeqs(t, cl.URLs()), 50)
}

// A forwarder that starts again from an older cursor (a kill -9 before it
// wrote the cursor) republishes, and the stream drops the repeats by
// their message ids.
func TestForwarderRepeatsAreDropped(t *testing.T) {
	cl := natstest.StartT(t, 1)
	home := t.TempDir()
	reg, err := bgtasks.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reg.Cursor(autostart.Consumer); err != nil {
		t.Fatal(err)
	}
	appendEvents(t, reg, 40)
	var log syncbuf.Buffer
	stop := forwarder(t, reg, cl.URLs(), &log)
	waitFor(t, "40 events published", func() bool { c, _ := reg.Cursor(autostart.Consumer); return c == 40 })
	stop()
	// The cursor as a forwarder killed before its last write left it.
	if err := os.WriteFile(filepath.Join(home, "consumers", autostart.Consumer+".cursor"), []byte("0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	appendEvents(t, reg, 5)
	stop = forwarder(t, reg, cl.URLs(), &log)
	defer stop()
	waitFor(t, "45 events published", func() bool { c, _ := reg.Cursor(autostart.Consumer); return c == 45 })
	wantSeqs(t, streamSeqs(t, cl.URLs()), 45)
}

// One forwarder per home: a second is refused, naming the first.
func TestOneForwarderPerHome(t *testing.T) {
	home := t.TempDir()
	release, err := autostart.Claim(home)
	if err != nil {
		t.Fatal(err)
	}
	reg, _ := bgtasks.Open(home)
	f := &fleet.Forwarder{Reg: reg, Config: fleet.Config{URLs: "nats://127.0.0.1:1", Stream: "EV"}}
	err = f.Run(context.Background())
	if !errors.Is(err, autostart.ErrHeld) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Fatalf("second forwarder: %v", err)
	}
	if running, _ := autostart.Running(home); !running {
		t.Error("Running says no forwarder while the lock is held")
	}
	release()
	if running, _ := autostart.Running(home); running {
		t.Error("Running says a forwarder runs after its release")
	}
}
