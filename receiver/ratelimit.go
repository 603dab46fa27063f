package receiver

import (
	"sync"
	"time"

	"github.com/hangdog/hangdog/watch"
)

// Bucket is a token bucket: perMin tokens at most (a minute's worth may
// come at once), refilled at perMin a minute. The local receiver keeps
// its buckets in memory (a restart gives every link a fresh minute, and
// loses nothing that was accepted); the fleet receiver keeps them in its
// key-value store, shared by every receiver, and takes from them with
// the same Take.
type Bucket struct {
	Tokens float64   `json:"tokens"`
	Last   time.Time `json:"last"`
}

// Take spends one token of b, perMin a minute (watch.DefaultRatePerMin
// if perMin ≤ 0; a new bucket, Last zero, is full), or says how long
// until one is there.
func (b *Bucket) Take(perMin int, now time.Time) (time.Duration, bool) {
	if perMin <= 0 {
		perMin = watch.DefaultRatePerMin
	}
	if b.Last.IsZero() {
		b.Tokens, b.Last = float64(perMin), now
	}
	perSec := float64(perMin) / 60
	if el := now.Sub(b.Last).Seconds(); el > 0 {
		b.Tokens = min(float64(perMin), b.Tokens+el*perSec)
		b.Last = now
	}
	if b.Tokens >= 1 {
		b.Tokens--
		return 0, true
	}
	return time.Duration((1 - b.Tokens) / perSec * float64(time.Second)), false
}

// windows are the local receiver's buckets, by watcher id and kind.
type windows struct {
	mu      sync.Mutex
	buckets map[string]*Bucket
}

// take spends one token of the link's bucket of that kind.
func (w *windows) take(id, kind string, perMin int, now time.Time) (time.Duration, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	key := id + "/" + kind
	b := w.buckets[key]
	if b == nil {
		b = &Bucket{}
		w.buckets[key] = b
	}
	return b.Take(perMin, now)
}

// forget drops the windows of links that are gone, so a receiver that
// runs for months does not keep every link it ever served.
func (w *windows) forget(active map[string]bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for key := range w.buckets {
		id := key
		for i := len(key) - 1; i >= 0; i-- {
			if key[i] == '/' {
				id = key[:i]
				break
			}
		}
		if !active[id] {
			delete(w.buckets, key)
		}
	}
}
