package receiver

import (
	"time"

	"github.com/hangdog/hangdog/watch"
)

// bucket is a token bucket: perMin tokens at most (a minute's worth may
// come at once), refilled at perMin a minute. The receiver keeps the rate
// windows in memory (with the store queues, which hold nothing accepted):
// a restart gives every link a fresh minute, and loses nothing that was
// accepted.
type bucket struct {
	tokens float64
	last   time.Time
}

// take spends one token of the link's bucket of that kind, or says how
// long until one is there.
func (r *Receiver) take(id, kind string, perMin int, now time.Time) (time.Duration, bool) {
	if perMin <= 0 {
		perMin = watch.DefaultRatePerMin
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	key := id + "/" + kind
	b := r.buckets[key]
	if b == nil {
		b = &bucket{tokens: float64(perMin), last: now}
		r.buckets[key] = b
	}
	perSec := float64(perMin) / 60
	if el := now.Sub(b.last).Seconds(); el > 0 {
		b.tokens = min(float64(perMin), b.tokens+el*perSec)
		b.last = now
	}
	if b.tokens >= 1 {
		b.tokens--
		return 0, true
	}
	return time.Duration((1 - b.tokens) / perSec * float64(time.Second)), false
}

// refund gives back a token take spent on a delivery that was then not
// stored (the receiver was busy): a sender's retry must not pay twice.
func (r *Receiver) refund(id, kind string, perMin int, now time.Time) {
	if perMin <= 0 {
		perMin = watch.DefaultRatePerMin
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if b := r.buckets[id+"/"+kind]; b != nil {
		b.tokens = min(float64(perMin), b.tokens+1)
	}
}

// forget drops the windows (and the store queues) of links that are gone, so a receiver that
// runs for months does not keep every link it ever served.
func (r *Receiver) forget(active map[string]bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for key := range r.buckets {
		id := key
		for i := len(key) - 1; i >= 0; i-- {
			if key[i] == '/' {
				id = key[:i]
				break
			}
		}
		if !active[id] {
			delete(r.buckets, key)
		}
	}
	for hash, q := range r.queues {
		if !active[q.id] && q.waiting.Load() == 0 {
			delete(r.queues, hash)
		}
	}
}
