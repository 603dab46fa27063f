package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hangdog/hangdog/fleet/natstest"
)

// The fleet receiver (serve.sink) through the binaries: `hangdog serve`
// in one home is the receiver; a trigger link made in another home (a
// sandbox: its own HANGDOG_HOME, settings and runner task) carries the
// receiver's address, starts no receiver of its own, and a delivery
// called at the fleet receiver fires the sandbox's watcher once; a
// repeat is a duplicate; `watch pause` closes the link at the fleet
// receiver and `watch resume` opens it again; `watch rm` closes it.
func TestFleetReceiverFiresASandboxsLink(t *testing.T) {
	nats := natstest.StartT(t, 1)
	port := freePort(t)
	base := "http://127.0.0.1:" + port

	rcv := newEnv(t)
	rcv.extra = append(rcv.extra, "HANGDOG_SERVE_SINK="+nats.URLs(), "HANGDOG_SERVE_ADDRESS=127.0.0.1:"+port)
	ctx, cancel := context.WithCancel(context.Background())
	serve := rcv.command(ctx, "serve")
	log, err := os.Create(filepath.Join(t.TempDir(), "serve.log"))
	if err != nil {
		t.Fatal(err)
	}
	serve.Stdout, serve.Stderr = log, log
	serve.Cancel = func() error { return serve.Process.Signal(syscall.SIGTERM) }
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = serve.Wait()
		if t.Failed() {
			b, _ := os.ReadFile(log.Name())
			t.Logf("fleet receiver's log:\n%s", b)
		}
	})
	eventually(t, "the fleet receiver to listen", 30*time.Second, func() bool {
		resp, err := http.Get(base + "/.hangdog/receiver")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil
	})

	sb := newEnv(t)
	sb.extra = append(sb.extra, "HANGDOG_SESSION=s1", "HANGDOG_SERVE_SINK="+nats.URLs(), "HANGDOG_RECEIVER_URL="+base)
	t.Cleanup(func() { sb.run("watch", "rm", "w1") })
	r := sb.run("watch", "create", "--kind", "webhook", "--json", "--check", "status", "--path", "status", "--value", "done")
	if r.code != 0 {
		t.Fatalf("create: %d %s %s", r.code, r.stdout, r.stderr)
	}
	var l struct {
		URL    string `json:"url"`
		TaskID string `json:"task_id"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &l); err != nil || !strings.HasPrefix(l.URL, base+"/hook/") || l.TaskID == "" {
		t.Fatalf("create said %s (%v)", r.stdout, err)
	}
	if _, err := os.Stat(filepath.Join(sb.home, "serve", "address.json")); err == nil {
		t.Errorf("the sandbox started a receiver of its own")
	}

	deliver := func(body, key string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, l.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := deliver(`{"status":"done","run":7}`, "run-7"); code != http.StatusAccepted || strings.Contains(body, "duplicate") {
		t.Fatalf("delivery: %d %s", code, body)
	}
	if code, body := deliver(`{"status":"done","run":7}`, "run-7"); code != http.StatusAccepted || !strings.Contains(body, `"duplicate":true`) {
		t.Fatalf("the retry: %d %s", code, body)
	}
	eventually(t, "the sandbox's watcher to fire", 30*time.Second, func() bool {
		return strings.Count(sb.run("events", "--json").stdout, `"watch_fired"`) == 1
	})
	time.Sleep(time.Second) // a second fire would come now
	evs := sb.run("events", "--json").stdout
	if strings.Count(evs, `"watch_fired"`) != 1 || !strings.Contains(evs, `\"run\":7`) || !strings.Contains(evs, `"owner":"s1"`) {
		t.Fatalf("the sandbox's events:\n%s", evs)
	}
	if got := rcv.run("events", "--json").stdout; strings.Contains(got, "watch_fired") {
		t.Fatalf("the receiver's home has the fire:\n%s", got)
	}

	// A pause withdraws the link from the fleet receiver; a resume
	// registers it again.
	if r := sb.run("watch", "pause", "w1"); r.code != 0 {
		t.Fatalf("watch pause: %d %s %s", r.code, r.stdout, r.stderr)
	}
	if code, body := deliver(`{"status":"done","run":8}`, "run-8"); code != http.StatusNotFound {
		t.Fatalf("a delivery to the paused link: %d %s", code, body)
	}
	if r := sb.run("watch", "resume", "w1"); r.code != 0 {
		t.Fatalf("watch resume: %d %s %s", r.code, r.stdout, r.stderr)
	}
	if code, body := deliver(`{"status":"done","run":9}`, "run-9"); code != http.StatusAccepted || strings.Contains(body, "duplicate") {
		t.Fatalf("a delivery after resume: %d %s", code, body)
	}
	eventually(t, "the resumed watcher to fire", 30*time.Second, func() bool {
		return strings.Count(sb.run("events", "--json").stdout, `"watch_fired"`) == 2
	})

	if r := sb.run("watch", "rm", "w1"); r.code != 0 {
		t.Fatalf("watch rm: %d %s %s", r.code, r.stdout, r.stderr)
	}
	if code, body := deliver(`{"status":"done","run":10}`, "run-10"); code != http.StatusNotFound {
		t.Fatalf("a delivery after rm: %d %s", code, body)
	}
}
