package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
)

func appendTestEvent(t *testing.T, reg *bgtasks.Registry, e bgtasks.Event) bgtasks.Event {
	t.Helper()
	out, err := reg.AppendEvent(e)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestEventLine(t *testing.T) {
	at := time.Date(2026, 11, 29, 10, 1, 2, 0, time.Local)
	one, zero := 1, 0
	for _, tc := range []struct {
		e    bgtasks.Event
		want string
	}{
		{bgtasks.Event{Seq: 12, Time: at, Kind: "exited", TaskID: "t4", Command: "npm test", ExitCode: &one, DurationMS: 212000},
			"#12 2026-11-29 10:01:02 t4 exited 1 after 212s: npm test"},
		{bgtasks.Event{Seq: 13, Time: at, Kind: "exited", TaskID: "t5", Command: "./crash", ExitCode: &zero, Signal: "SIGSEGV", DurationMS: 1500},
			"#13 2026-11-29 10:01:02 t5 exited on SIGSEGV after 1s: ./crash"},
		{bgtasks.Event{Seq: 14, Time: at, Kind: "killed", TaskID: "t6", Command: "npm init", Signal: "SIGTERM", Reason: "waiting for input", DurationMS: 12000},
			"#14 2026-11-29 10:01:02 t6 killed by SIGTERM after 12s (waiting for input): npm init"},
		{bgtasks.Event{Seq: 15, Time: at, Kind: "detached", TaskID: "t7", Command: "make\n\x1b[2Jall", Reason: "stuck\tlooping", DurationMS: 40000},
			"#15 2026-11-29 10:01:02 t7 detached after 40s (stuck looping): make all"},
		{bgtasks.Event{Seq: 16, Time: at, Kind: "lost", TaskID: "t8", Command: "x", Reason: bgtasks.LostReason},
			"#16 2026-11-29 10:01:02 t8 lost (" + bgtasks.LostReason + "): x"},
	} {
		if got := eventLine(tc.e); got != tc.want {
			t.Errorf("eventLine:\n got %q\nwant %q", got, tc.want)
		}
	}
}

func TestEventsCommand(t *testing.T) {
	reg := testRegistry(t)
	if o := hangdog("events"); o.status != 0 || o.stdout != "" {
		t.Fatalf("events with none: %+v", o)
	}
	code := 1
	appendTestEvent(t, reg, bgtasks.Event{Kind: bgtasks.EventExited, TaskID: "t1", Command: "npm test", ExitCode: &code, DurationMS: 3000})
	appendTestEvent(t, reg, bgtasks.Event{Kind: bgtasks.EventDetached, TaskID: "t2", Command: "npm init", Reason: "waiting for input", Tail: "name: "})
	appendTestEvent(t, reg, bgtasks.Event{Kind: bgtasks.EventKilled, TaskID: "t3", Command: "sleep 9"})

	o := hangdog("events")
	lines := strings.Split(strings.TrimSuffix(o.stdout, "\n"), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "#1 ") || !strings.HasSuffix(lines[0], "t1 exited 1 after 3s: npm test") ||
		!strings.HasSuffix(lines[1], "t2 detached (waiting for input): npm init") || !strings.HasPrefix(lines[2], "#3 ") {
		t.Fatalf("events:\n%s", o.stdout)
	}
	o = hangdog("events", "--since", "1", "--json")
	var got []bgtasks.Event
	for _, line := range strings.Split(strings.TrimSpace(o.stdout), "\n") {
		var e bgtasks.Event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("events --json line %q: %v", line, err)
		}
		got = append(got, e)
	}
	if len(got) != 2 || got[0].Seq != 2 || got[0].Tail != "name: " || got[1].Seq != 3 {
		t.Fatalf("events --since 1 --json: %+v", got)
	}
	if o := hangdog("events", "--since", "-1"); o.status != exitHangdogError {
		t.Fatalf("negative --since accepted: %+v", o)
	}
}

func TestEventsFollow(t *testing.T) {
	reg := testRegistry(t)
	appendTestEvent(t, reg, bgtasks.Event{Kind: bgtasks.EventExited, TaskID: "t1", Command: "old"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out lockedBuffer
	done := make(chan error, 1)
	go func() {
		root := newRootCmd()
		root.SetArgs([]string{"events", "--follow", "--since", "1"})
		root.SetOut(&out)
		root.SetErr(&out)
		done <- root.ExecuteContext(ctx)
	}()
	appendTestEvent(t, reg, bgtasks.Event{Kind: bgtasks.EventWarning, TaskID: "t2", Command: "new", Reason: "looping"})
	waitForOutput(t, &out, "t2 warning (looping): new\n", done)
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("events --follow after interrupt: %v", err)
	}
	if strings.Contains(out.String(), "old") {
		t.Fatalf("--since 1 printed event 1: %q", out.String())
	}
}
