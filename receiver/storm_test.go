package receiver

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hangdog/hangdog/internal/testbin"
	"github.com/hangdog/hangdog/watch"
)

// nofileEnv, for the "serve" helper: the RLIMIT_NOFILE (soft and hard) it
// sets on itself before serving, so a storm that would exhaust the
// descriptors of a real receiver is cheap to reproduce.
const nofileEnv = "RECEIVER_TEST_NOFILE"

// TestWebhookStorm sends N deliveries (800 here; scripts/webhook-load.sh
// --storm sends 10,000), each on a connection of its own and all at once,
// to one live link of a receiver whose RLIMIT_NOFILE is 256 (the script
// keeps the machine's). No sender may get a 404 or a 500: past its limits
// the receiver answers 503 or 429 with Retry-After, and a sender retries
// after it. The receiver's threads stay bounded, and every 202 is exactly
// one event of a real runner process within a minute of the storm's end.
func TestWebhookStorm(t *testing.T) {
	if testing.Short() {
		t.Skip("a load test")
	}
	n := envInt("WEBHOOK_STORM_N", 800)
	nofile := envInt("WEBHOOK_STORM_NOFILE", 256)
	if os.Getenv("WEBHOOK_STORM_NOFILE") == "0" {
		nofile = 0 // the machine's own limit
	}
	home, store := processHome(t, "127.0.0.1:"+freePort(t))
	q := &watch.Request{Kind: watch.KindWebhook, MaxHits: &n, Rate: strconv.Itoa(watch.MaxRatePerMin) + "/min"}
	c, err := store.Create(context.Background(), q, owner, "")
	if err != nil {
		t.Fatal(err)
	}
	id := c.Spec.ID

	serve := helperCmd("serve", "stay")
	if nofile > 0 {
		serve.Env = append(serve.Env, nofileEnv+"="+strconv.Itoa(nofile))
	}
	serveLog := &syncBuffer{}
	serve.Stdout, serve.Stderr = serveLog, serveLog
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { serve.Process.Signal(syscall.SIGTERM); serve.Wait() })
	var addr Address
	waitUntil(t, "the receiver to listen", 20*time.Second, func() bool {
		a, err := readAddress(filepath.Join(home, serveDir))
		addr = a
		return err == nil && a.PID == serve.Process.Pid
	})
	runner := helperCmd("run", id)
	runnerLog := &syncBuffer{}
	runner.Stdout, runner.Stderr = runnerLog, runnerLog
	if err := runner.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { runner.Process.Signal(syscall.SIGTERM); runner.Wait() })
	token, _ := store.LinkToken(id, owner)
	url := addr.URL + HookPrefix + token

	// The receiver's threads and memory, sampled through the storm.
	sampling, stopSampling := context.WithCancel(context.Background())
	var peakThreads, peakPss atomic.Int64
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for i := 0; sampling.Err() == nil; i++ {
			if st := procStatus(serve.Process.Pid); st["Threads"] > peakThreads.Load() {
				peakThreads.Store(st["Threads"])
			}
			if i%20 == 0 { // smaps_rollup walks every mapping: less often
				peakPss.Store(max(peakPss.Load(), procPss(serve.Process.Pid)))
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	defer stopSampling()

	var (
		codes    sync.Map // status code → *atomic.Int64 (answers, retries included)
		noRetry  atomic.Int64
		got202   = make([]bool, n)
		failures = make(chan string, n)
		ready    sync.WaitGroup
		fire     = make(chan struct{})
		wg       sync.WaitGroup
	)
	count := func(code int) {
		v, _ := codes.LoadOrStore(code, new(atomic.Int64))
		v.(*atomic.Int64).Add(1)
	}
	// One connection per delivery: a storm of senders, not one client's
	// pool. Each retries, with its Idempotency-Key, as a sender does.
	// A sender retries for a minute and, with N deliveries to store one
	// after another, 50 ms more for each, longer on a busy machine (the
	// stores wait for the disk and the CPU): what is checked is that no
	// live link's delivery is lost or refused for good, not the pace.
	retryFor := time.Duration(float64(time.Minute+time.Duration(n)*50*time.Millisecond) * testbin.LoadScale())
	client := &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{DisableKeepAlives: true, MaxConnsPerHost: 0}}
	start := time.Now()
	ready.Add(n)
	for k := range n {
		wg.Go(func() {
			body := fmt.Sprintf(`{"id":"d-%d","status":"done"}`, k)
			deadline := time.Now().Add(retryFor)
			ready.Done()
			<-fire
			for {
				req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Idempotency-Key", "d-"+strconv.Itoa(k))
				resp, err := client.Do(req)
				if err != nil {
					failures <- fmt.Sprintf("delivery %d: %v", k, err)
					return
				}
				resp.Body.Close()
				count(resp.StatusCode)
				switch resp.StatusCode {
				case http.StatusAccepted:
					got202[k] = true
					return
				case http.StatusServiceUnavailable, http.StatusTooManyRequests:
					secs, err := strconv.Atoi(resp.Header.Get("Retry-After"))
					if err != nil || secs < 1 {
						noRetry.Add(1)
						secs = 1
					}
					if time.Now().After(deadline) {
						failures <- fmt.Sprintf("delivery %d: still %d after %v", k, resp.StatusCode, retryFor)
						return
					}
					time.Sleep(time.Duration(secs) * time.Second)
				default:
					failures <- fmt.Sprintf("delivery %d: %d", k, resp.StatusCode)
					return
				}
			}
		})
	}
	ready.Wait()
	close(fire)
	wg.Wait()
	stormEnd := time.Now()
	close(failures)
	stopSampling()
	<-sampled
	status := procStatus(serve.Process.Pid)

	answers := map[int]int64{}
	codes.Range(func(k, v any) bool { answers[k.(int)] = v.(*atomic.Int64).Load(); return true })
	var failed []string
	for f := range failures {
		failed = append(failed, f)
	}
	if len(failed) > 0 {
		t.Errorf("%d of %d deliveries failed (no 404, 500 or dropped connection may happen to a live link); the first: %s", len(failed), n, strings.Join(failed[:min(5, len(failed))], "; "))
	}
	if answers[http.StatusNotFound] > 0 || answers[http.StatusInternalServerError] > 0 {
		t.Errorf("a live link answered %d × 404 and %d × 500", answers[http.StatusNotFound], answers[http.StatusInternalServerError])
	}
	if noRetry.Load() > 0 {
		t.Errorf("%d answers of 503/429 without a Retry-After", noRetry.Load())
	}
	// The receiver's threads: its handlers blocked on a watcher's lock or
	// an fsync each hold one, so they are bounded by its in-flight limit.
	_, handlers := overloadLimits(uint64(nofile))
	if nofile == 0 {
		_, handlers = overloadLimits(nofileLimit())
	}
	if bound := int64(handlers + 64); peakThreads.Load() > bound {
		t.Errorf("the receiver grew to %d threads (its in-flight limit is %d handlers; want at most %d)", peakThreads.Load(), handlers, bound)
	}

	// Every 202 is exactly one event, within a minute of the storm's end.
	accepted := 0
	for _, ok := range got202 {
		if ok {
			accepted++
		}
	}
	var counts map[string]int
	for deadline := stormEnd.Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		counts = eventCounts(t, store, id)
		if len(counts) >= accepted {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a minute after the storm: %d events of %d accepted deliveries\nrunner log:\n%s\nreceiver log (tail):\n%s", len(counts), accepted, runnerLog.String(), lastBytes(serveLog.String(), 2000))
		}
	}
	drained := time.Since(stormEnd)
	time.Sleep(1500 * time.Millisecond) // a runner tick more: nothing extra may come
	checkOneEventPerAccepted(t, store, id, got202)
	limit := "the machine's RLIMIT_NOFILE"
	if nofile > 0 {
		limit = fmt.Sprintf("RLIMIT_NOFILE %d", nofile)
	} else {
		limit += fmt.Sprintf(" (%d)", nofileLimit())
	}
	conns, _ := overloadLimits(uint64(nofile))
	if nofile == 0 {
		conns, _ = overloadLimits(nofileLimit())
	}
	summary := fmt.Sprintf("webhook storm: %d deliveries at once, one connection each, to one link of a receiver with %s (at most %d connections, %d handlers in flight); all answered in %v: %d × 202, %d × 503, %d × 429 (the senders retried after Retry-After), %d × 404, %d × 500, %d failed; receiver peak %d threads, peak RSS %d MiB (VmHWM), peak PSS %d MiB (sampled every 0.1 s); every 202 exactly one event, the last %v after the storm's end",
		n, limit, conns, handlers, stormEnd.Sub(start).Round(time.Millisecond), answers[http.StatusAccepted], answers[http.StatusServiceUnavailable], answers[http.StatusTooManyRequests],
		answers[http.StatusNotFound], answers[http.StatusInternalServerError], len(failed),
		peakThreads.Load(), status["VmHWM"]>>10, peakPss.Load()>>10, drained.Round(time.Millisecond))
	logged := serveLog.String()
	if path := os.Getenv("WEBHOOK_STORM_LOG"); path != "" {
		_ = os.WriteFile(path, []byte(logged), 0o600)
	}
	summary += fmt.Sprintf(" (503s the receiver logged: %d with no handler free in %v, %d with the link's queue over %v)",
		strings.Count(logged, " 503 busy"), admitWait, strings.Count(logged, " 503 the link's deliveries queued"), maxStoreWait)
	t.Log(summary)
	if path := os.Getenv("WEBHOOK_LOAD_REPORT"); path != "" {
		_ = os.WriteFile(path, []byte(summary+"\n"), 0o600)
	}
}

// procStatus reads /proc/<pid>/status's numbers (kB fields as kB).
func procStatus(pid int) map[string]int64 {
	out := map[string]int64{}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return out
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		if f := strings.Fields(rest); len(f) > 0 {
			if v, err := strconv.ParseInt(f[0], 10, 64); err == nil {
				out[name] = v
			}
		}
	}
	return out
}

// procPss is the process's proportional set size in kB.
func procPss(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "Pss:"); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				v, _ := strconv.ParseInt(f[0], 10, 64)
				return v
			}
		}
	}
	return 0
}

func lastBytes(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
