package receiver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hangdog/hangdog/watch"
)

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

var deliveryInPayload = regexp.MustCompile(`"id":"(d-\d+)"`)

// TestWebhookLoad sends N deliveries (200 here; scripts/webhook-load.sh
// sends 1,000) from 20 concurrent senders to one link, kills the receiver
// with SIGKILL halfway and starts it again (Ensure, as the next create
// would). A sender retries its delivery, with the same Idempotency-Key,
// until it gets a 202. Then every delivery that got a 202 must be exactly
// one event, made by a real runner process, and nothing else an event.
func TestWebhookLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("a load test")
	}
	n := envInt("WEBHOOK_LOAD_N", 200)
	senders := envInt("WEBHOOK_LOAD_SENDERS", 20)
	home, store := processHome(t, "127.0.0.1:"+freePort(t))
	q := &watch.Request{Kind: watch.KindWebhook, MaxHits: &n, Rate: strconv.Itoa(watch.MaxRatePerMin) + "/min"}
	c, err := store.Create(context.Background(), q, owner, "")
	if err != nil {
		t.Fatal(err)
	}
	id := c.Spec.ID
	runner := helperCmd("run", id)
	runnerLog, _ := os.Create(filepath.Join(t.TempDir(), "runner.log"))
	runner.Stdout, runner.Stderr = runnerLog, runnerLog
	if err := runner.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { runner.Process.Signal(syscall.SIGTERM); runner.Wait() })
	base, err := Ensure(context.Background(), store)
	if err != nil {
		t.Fatal(err)
	}
	token, _ := store.LinkToken(id, owner)
	url := base + HookPrefix + token
	first, err := readAddress(filepath.Join(home, serveDir))
	if err != nil {
		t.Fatal(err)
	}

	var (
		accepted   atomic.Int64
		mu         sync.Mutex
		latencies  []time.Duration
		got202     = make([]bool, n)
		failedOnce atomic.Int64
		killedAt   time.Time
		restarted  = make(chan string, 1)
	)
	client := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: senders}}
	jobs := make(chan int, n)
	for k := range n {
		jobs <- k
	}
	close(jobs)
	start := time.Now()
	var wg sync.WaitGroup
	for range senders {
		wg.Go(func() {
			for k := range jobs {
				body := fmt.Sprintf(`{"id":"d-%d","status":"done"}`, k)
				deadline := time.Now().Add(60 * time.Second)
				for {
					req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("Idempotency-Key", "d-"+strconv.Itoa(k))
					t0 := time.Now()
					resp, err := client.Do(req)
					if err == nil {
						resp.Body.Close()
						if resp.StatusCode == http.StatusAccepted {
							mu.Lock()
							latencies = append(latencies, time.Since(t0))
							got202[k] = true
							mu.Unlock()
							accepted.Add(1)
							break
						}
						t.Errorf("delivery %d: %d", k, resp.StatusCode)
						return
					}
					failedOnce.Add(1) // the receiver is down: retry, as senders do
					if time.Now().After(deadline) {
						t.Errorf("delivery %d: no 202 in 60 s: %v", k, err)
						return
					}
					time.Sleep(50 * time.Millisecond)
				}
			}
		})
	}
	// The kill, halfway.
	wg.Go(func() {
		for accepted.Load() < int64(n/2) {
			time.Sleep(time.Millisecond)
		}
		killedAt = time.Now()
		if err := syscall.Kill(first.PID, syscall.SIGKILL); err != nil {
			t.Errorf("kill the receiver: %v", err)
		}
		for alive(first.PID) {
			time.Sleep(5 * time.Millisecond)
		}
		u, err := Ensure(context.Background(), store)
		if err != nil {
			t.Errorf("restart the receiver: %v", err)
		}
		restarted <- u
	})
	wg.Wait()
	elapsed := time.Since(start)
	if t.Failed() {
		t.FailNow()
	}
	if u := <-restarted; u != base {
		t.Errorf("restarted at %s, want the same address %s", u, base)
	}
	second, _ := readAddress(filepath.Join(home, serveDir))
	if second.PID == first.PID {
		t.Errorf("the receiver was not restarted (pid %d)", first.PID)
	}

	// Every 202 is exactly one event, once the runner has drained.
	var counts map[string]int
	total := 0
	drained := func() bool {
		counts = eventCounts(t, store, id)
		total = 0
		for _, c := range counts {
			total += c
		}
		return total >= n
	}
	for deadline := time.Now().Add(120 * time.Second); !drained(); time.Sleep(30 * time.Millisecond) {
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(runnerLog.Name())
			inbox, _ := filepath.Glob(filepath.Join(home, "watchers", id, "*", "*"))
			t.Fatalf("timed out after 2m waiting for an event per accepted delivery: %d events of %d; files under the watcher: %d\nrunner log:\n%s", total, n, len(inbox), log)
		}
	}
	time.Sleep(1500 * time.Millisecond) // a runner tick more: nothing extra may come
	checkOneEventPerAccepted(t, store, id, got202)
	slices.Sort(latencies)
	pct := func(p float64) time.Duration { return latencies[min(len(latencies)-1, int(p*float64(len(latencies))))] }
	summary := fmt.Sprintf("webhook load: %d deliveries from %d senders in %v (%.0f/s); receiver killed -9 at %v and restarted; %d requests failed while it was down and were retried; 202 latency p50 %v, p99 %v, max %v; every 202 is exactly one event",
		n, senders, elapsed.Round(time.Millisecond), float64(n)/elapsed.Seconds(), killedAt.Sub(start).Round(time.Millisecond),
		failedOnce.Load(), pct(0.50).Round(10*time.Microsecond), pct(0.99).Round(10*time.Microsecond), latencies[len(latencies)-1].Round(10*time.Microsecond))
	t.Log(summary)
	if path := os.Getenv("WEBHOOK_LOAD_REPORT"); path != "" {
		_ = os.WriteFile(path, []byte(summary+"\n"), 0o600)
	}
}

// eventCounts counts the watcher's fire events per delivery id.
func eventCounts(t *testing.T, store *watch.Store, id string) map[string]int {
	t.Helper()
	evs, err := store.Registry().Events(0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, e := range evs {
		if e.WatcherID != id || e.Kind != "watch_fired" {
			continue
		}
		m := deliveryInPayload.FindStringSubmatch(e.Payload)
		if m == nil {
			b, _ := json.Marshal(e)
			t.Errorf("an event without a delivery: %s", b)
			continue
		}
		out[m[1]]++
	}
	return out
}

// checkOneEventPerAccepted: every delivery d-K that got a 202 (got202[K])
// is exactly one event of watcher id, and no event is of a delivery nobody
// sent.
func checkOneEventPerAccepted(t *testing.T, store *watch.Store, id string, got202 []bool) {
	t.Helper()
	counts := eventCounts(t, store, id)
	for k := range got202 {
		key := "d-" + strconv.Itoa(k)
		if got202[k] && counts[key] != 1 {
			t.Errorf("%s got a 202 and is in %d events", key, counts[key])
		}
		delete(counts, key)
	}
	for key, c := range counts {
		t.Errorf("%d events for %s, which no sender sent", c, key)
	}
}
