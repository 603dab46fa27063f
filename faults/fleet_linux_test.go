//go:build linux

package faults

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/fleet"
	"github.com/hangdog/hangdog/fleet/autostart"
	"github.com/hangdog/hangdog/fleet/natstest"
)

// forwarderPID is the pid holding a home's forwarder lock, 0 for none.
func forwarderPID(home string) int {
	b, _ := os.ReadFile(autostart.LockPath(home))
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if pid <= 0 {
		return 0
	}
	cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if !strings.Contains(string(cmdline), "fleet\x00forward") {
		return 0
	}
	return pid
}

// Three sandboxes (separate homes) publish to a 3-node cluster whose
// stream has 3 replicas, through forwarders started by their first task;
// a wake worker elsewhere takes every sandbox's events. One node is killed
// and restarted, and one sandbox's forwarder is killed -9, while the
// events come: the worker is handed every event exactly once, in each
// sandbox's order. Most events are appended through the event log's own
// API (1,000 supervised processes would take minutes); real tasks and a
// real watcher's fire go through the binaries.
func TestFleetEveryEventOnceInOrder(t *testing.T) {
	if testing.Short() {
		t.Skip("a 3-node NATS cluster and three sandboxes: not in -short")
	}
	cl := natstest.StartT(t, 3)
	urls := cl.URLs()

	// The control plane: a wake worker over the whole stream.
	ctrl := newWorld(t)
	if err := os.MkdirAll(ctrl.home, 0o700); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(ctrl.root, "handed.jsonl")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	wk := ctrl.command(ctx, "wake", "--here", "--from", urls, "--consumer", "control-plane", "--run", `cat >> "`+out+`"`)
	var wkLog syncBuffer
	wk.Stdout, wk.Stderr = &wkLog, &wkLog
	if err := wk.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); _ = wk.Wait() }()
	eventually(t, "the wake worker to wait for events", 30*time.Second, func() bool {
		return strings.Contains(wkLog.String(), "waiting for events")
	})

	c, err := fleet.Connect(fleet.Config{URLs: urls, Stream: "HANGDOG_EVENTS"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sctx, scancel := context.WithTimeout(context.Background(), 10*time.Second)
	stream, err := c.EnsureStream(sctx)
	if err != nil {
		t.Fatal(err)
	}
	info, err := stream.Info(sctx)
	scancel()
	if err != nil {
		t.Fatal(err)
	}
	if info.Config.Replicas != 3 {
		t.Errorf("the stream has %d replicas, want 3", info.Config.Replicas)
	}
	// The node killed below is the stream's leader: the publishes in
	// flight wait for an election.
	victim := 1
	if info.Cluster != nil && cl.Index(info.Cluster.Leader) >= 0 {
		victim = cl.Index(info.Cluster.Leader)
	}

	const sandboxes = 3
	var worlds [sandboxes]*world
	var regs [sandboxes]*bgtasks.Registry
	for i := range worlds {
		w := newWorld(t)
		w.extra = []string{"HANGDOG_EVENTS_SINK=" + urls, fmt.Sprintf("HANGDOG_EVENTS_HOST=box%d", i+1)}
		worlds[i] = w
		t.Cleanup(func() {
			if pid := forwarderPID(w.home); pid > 0 {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		})
		// A real task: its start brings the forwarder, its end is an event.
		if r := w.run("bg", "run", "--", "bash", "-c", "exit 1"); r.code != 0 {
			t.Fatalf("bg run: %d %s", r.code, r.stderr)
		}
		reg, err := bgtasks.Open(w.home)
		if err != nil {
			t.Fatal(err)
		}
		regs[i] = reg
	}
	// A real watcher's fire in the first sandbox.
	watched := filepath.Join(worlds[0].root, "watched.txt")
	if err := os.WriteFile(watched, []byte("v0"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := worlds[0].run("watch", "create", "--kind", "file", watched); r.code != 0 {
		t.Fatalf("watch create: %d %s", r.code, r.stderr)
	}
	defer worlds[0].run("watch", "rm", "w1")
	fired := func() bool {
		evs, _ := regs[0].Events(0)
		for _, e := range evs {
			if e.Kind == bgtasks.EventWatchFired {
				return true
			}
		}
		return false
	}
	deadline := time.Now().Add(30 * time.Second)
	for v := 1; !fired(); v++ {
		if time.Now().After(deadline) {
			t.Fatal("the file watcher did not fire")
		}
		_ = os.WriteFile(watched, []byte(fmt.Sprintf("v%d", v)), 0o600)
		time.Sleep(300 * time.Millisecond)
	}
	for i, w := range worlds {
		eventually(t, fmt.Sprintf("sandbox %d's forwarder", i+1), 10*time.Second, func() bool { return forwarderPID(w.home) > 0 })
	}

	// The bulk, in three parts, with a node killed and a forwarder killed
	// -9 between them (each while the forwarders still publish).
	const perPart = 111 // 3 sandboxes × 3 parts × 111 = 999, with the real ones over 1,000
	appendPart := func(part int) {
		var wg sync.WaitGroup
		for i, reg := range regs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for n := range perPart {
					e := bgtasks.Event{Kind: bgtasks.EventExited, TaskID: fmt.Sprintf("t%d", 1000+part*perPart+n), Command: "synthetic", Owner: fmt.Sprintf("session-%d", i+1), Project: "/src/app"}
					if _, err := reg.AppendEvent(e); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
	}
	appendPart(0)
	cl.Kill(victim)
	t.Logf("killed node %d, the stream's leader", victim+1)
	appendPart(1)
	killed := forwarderPID(worlds[1].home)
	if killed == 0 {
		t.Fatal("sandbox 2 has no forwarder to kill")
	}
	if err := syscall.Kill(killed, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cursor, _ := regs[1].Cursor(autostart.Consumer)
	last, _ := regs[1].LastEventSeq()
	t.Logf("sandbox 2's forwarder killed -9 at its cursor %d of %d events", cursor, last)
	appendPart(2)
	if err := cl.Restart(victim); err != nil {
		t.Fatal(err)
	}
	// The next task in sandbox 2 brings a new forwarder.
	for _, w := range worlds {
		if r := w.run("bg", "run", "--", "bash", "-c", "exit 2"); r.code != 0 {
			t.Fatalf("bg run: %d %s", r.code, r.stderr)
		}
	}
	eventually(t, "a new forwarder in sandbox 2", 10*time.Second, func() bool {
		pid := forwarderPID(worlds[1].home)
		return pid > 0 && pid != killed
	})

	// Every event of every sandbox, once, in its order.
	want := map[string]int64{} // home id → last seq
	total := int64(0)
	for i, reg := range regs {
		// The last task's end may still be on its way to the log.
		eventually(t, "the last task's end", 10*time.Second, func() bool {
			evs, _ := reg.Events(0)
			return len(evs) > 0 && evs[len(evs)-1].Command != "synthetic"
		})
		id, err := fleet.HomeID(worlds[i].home)
		if err != nil {
			t.Fatal(err)
		}
		last, err := reg.LastEventSeq()
		if err != nil {
			t.Fatal(err)
		}
		want[id] = last
		total += last
	}
	if total < 1000 {
		t.Fatalf("the sandboxes logged %d events, want at least 1,000", total)
	}
	var got []bgtasks.Event
	read := func() {
		got = got[:0]
		f, err := os.Open(out)
		if err != nil {
			return
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var e bgtasks.Event
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				t.Fatalf("the run got a line that is not an event: %q", sc.Text())
			}
			got = append(got, e)
		}
	}
	eventually(t, fmt.Sprintf("%d events handed over", total), 40*time.Second, func() bool {
		read()
		return int64(len(got)) >= total
	})
	time.Sleep(500 * time.Millisecond) // a repeat would come now
	read()
	next := map[string]int64{}
	for _, e := range got {
		if _, ok := want[e.HomeID]; !ok {
			t.Fatalf("an event of an unknown home: %+v", e)
		}
		if e.Seq != next[e.HomeID]+1 {
			t.Fatalf("home %s (%s): event %d handed over after %d: not each once, in order\nworker log:\n%s", e.HomeID, e.Host, e.Seq, next[e.HomeID], wkLog.String())
		}
		next[e.HomeID] = e.Seq
	}
	for id, last := range want {
		if next[id] != last {
			t.Errorf("home %s: handed over up to %d, its log has %d", id, next[id], last)
		}
	}
	if int64(len(got)) != total {
		t.Errorf("handed over %d events, the sandboxes logged %d", len(got), total)
	}
	hosts := map[string]bool{}
	kinds := map[string]bool{}
	for _, e := range got {
		hosts[e.Host] = true
		kinds[e.Kind] = true
	}
	if len(hosts) != sandboxes || !kinds[bgtasks.EventWatchFired] {
		t.Errorf("hosts %v, kinds %v: want three sandboxes and a watcher's fire", hosts, kinds)
	}
}

// Without events.sink a task start starts no forwarder and writes nothing
// of the fleet; with a sink that answers nowhere, the task still runs and
// the forwarder waits, its log naming the server without its credentials.
func TestFleetNothingWithoutASink(t *testing.T) {
	w := newWorld(t)
	if r := w.run("bg", "run", "--", "bash", "-c", "exit 1"); r.code != 0 {
		t.Fatalf("bg run: %d %s", r.code, r.stderr)
	}
	if _, err := os.Stat(fleet.Dir(w.home)); !os.IsNotExist(err) {
		t.Errorf("without a sink, %s exists (%v)", fleet.Dir(w.home), err)
	}

	sink := newWorld(t)
	sink.extra = []string{"HANGDOG_EVENTS_SINK=nats://s3cret-token@127.0.0.1:1"}
	t.Cleanup(func() {
		if pid := forwarderPID(sink.home); pid > 0 {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	if r := sink.run("run", "--", "true"); r.code != 0 {
		t.Fatalf("run with an unreachable sink: %d %s", r.code, r.stderr)
	}
	eventually(t, "the forwarder's log to say it cannot publish", 20*time.Second, func() bool {
		b, _ := os.ReadFile(autostart.LogPath(sink.home))
		return strings.Contains(string(b), "cannot publish to nats://***@127.0.0.1:1")
	})
	if b, _ := os.ReadFile(autostart.LogPath(sink.home)); strings.Contains(string(b), "s3cret") {
		t.Errorf("the forwarder's log shows the credentials:\n%s", b)
	}
}

// A `wake --from` worker killed -9 mid-run, its run killed with it: the
// next worker asks --seen, which finds the batch's mark, so the batch is
// not handed over again; what came meanwhile is, once.
func TestWakeFromKilledMidRun(t *testing.T) {
	cl := natstest.StartT(t, 1)
	c, err := fleet.Connect(fleet.Config{URLs: cl.URLs(), Stream: "HANGDOG_EVENTS"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	publish := func(from, to int64) {
		t.Helper()
		for seq := from; seq <= to; seq++ {
			e := bgtasks.Event{Seq: seq, Kind: bgtasks.EventExited, TaskID: fmt.Sprintf("t%d", seq), Command: "make"}
			body, _ := json.Marshal(fleet.Message{Host: "box1", HomeID: "h1", Event: e})
			pctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			_, err := c.JS.Publish(pctx, fleet.Subject("box1", e), body)
			cancel()
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	w := newWorld(t)
	if err := os.MkdirAll(w.home, 0o700); err != nil {
		t.Fatal(err)
	}
	out, marks := filepath.Join(w.root, "handed.jsonl"), filepath.Join(w.root, "marks")
	run := `echo "$HANGDOG_WAKE_MARK" >> "` + marks + `"; cat >> "` + out + `"; sleep 30`
	seen := `grep -qxF "$HANGDOG_WAKE_MARK" "` + marks + `"`
	start := func() (*exec.Cmd, *syncBuffer) {
		cmd := w.command(context.Background(), "wake", "--here", "--from", cl.URLs(), "--consumer", "cp", "--run", run, "--seen", seen)
		var log syncBuffer
		cmd.Stdout, cmd.Stderr = &log, &log
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// SIGTERM: a worker stopped on purpose ends its run too (the run
		// has a session of its own and would outlive a kill).
		t.Cleanup(func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() })
		eventually(t, "the worker to wait for events", 20*time.Second, func() bool { return strings.Contains(log.String(), "waiting for events") })
		return cmd, &log
	}
	lines := func() []string {
		b, _ := os.ReadFile(out)
		return strings.Fields(string(b))
	}
	first, _ := start()
	publish(1, 3)
	eventually(t, "the first batch in the run", 20*time.Second, func() bool { return len(lines()) == 3 })
	// The worker and its run (a process group of its own) die at once.
	var rec struct {
		PID int `json:"pid"`
	}
	b, err := os.ReadFile(filepath.Join(w.home, "wake", "cp.json"))
	if err != nil || json.Unmarshal(b, &rec) != nil || rec.PID <= 0 {
		t.Fatalf("the worker's record: %s %v", b, err)
	}
	_ = syscall.Kill(first.Process.Pid, syscall.SIGKILL)
	_ = syscall.Kill(-rec.PID, syscall.SIGKILL)
	_ = first.Wait()
	publish(4, 5)

	second, log := start()
	eventually(t, "the second batch in the run", 20*time.Second, func() bool { return len(lines()) >= 5 })
	time.Sleep(300 * time.Millisecond)
	got := lines()
	if len(got) != 5 {
		t.Fatalf("handed over %d events, want 5 (the first batch once):\n%s\nworker log:\n%s", len(got), strings.Join(got, "\n"), log.String())
	}
	for i, l := range got {
		var e bgtasks.Event
		if err := json.Unmarshal([]byte(l), &e); err != nil || e.Seq != int64(i+1) || e.Host != "box1" {
			t.Fatalf("line %d: %s (%v)", i, l, err)
		}
	}
	if !strings.Contains(log.String(), "the agent's record has events") {
		t.Errorf("the second worker did not ask --seen:\n%s", log.String())
	}
	_ = second.Process.Signal(syscall.SIGTERM)
	_ = second.Wait()
	if b, err := os.ReadFile(filepath.Join(w.home, "wake", "cp.json")); err == nil && json.Unmarshal(b, &rec) == nil && rec.PID > 0 {
		if syscall.Kill(rec.PID, 0) == nil {
			t.Errorf("the run (pid %d) outlived its stopped worker", rec.PID)
			_ = syscall.Kill(-rec.PID, syscall.SIGKILL)
		}
	}
}
