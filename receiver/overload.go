package receiver

import (
	"context"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Overload. A receiver takes on no more than its descriptors and threads
// allow, and answers the rest 503 with Retry-After: a storm of 10,500
// deliveries at once had run one out of descriptors (a live link answered
// 404 and 500) and up to 9,996 threads (a handler blocked on a watcher's
// lock or an fsync holds a thread). The limits come from RLIMIT_NOFILE by
// overloadLimits, once, when the receiver starts.
const (
	// fdsPerHandler is the most one handler holds open at once: the
	// watcher's lock, a file it reads or writes, and a directory it syncs.
	fdsPerHandler = 4
	// fdReserve is what the rest of the process holds: the listener, the
	// log, inotify, the runtime's poller, stdio.
	fdReserve = 64
	// maxHandlers bounds the requests doing disk work at once, whatever
	// the descriptors: each may hold a thread, and the deliveries of one
	// link take its lock in turn anyway.
	maxHandlers = 64
	// maxConns bounds the open connections (some 30 KiB of memory each:
	// 133 MiB peak RSS with 4,096 open in a storm);
	// past it, new connections wait in the kernel's listen queue.
	maxConns = 4096
	// admitWait is how long a request waits for a handler before it is
	// answered 503; retryAfter the Retry-After of that answer, in seconds.
	admitWait  = time.Second
	retryAfter = 1
	// maxStoreWait is the longest a delivery waits for its link's turn to
	// be stored (the stores of one link are one after another: they take
	// its lock); one that would wait longer is answered 503 at once, with
	// the expected wait as its Retry-After, rather than after the wait.
	maxStoreWait = 5 * time.Second
	// firstStoreTime is what a store is expected to take before one is
	// measured: on the slow side (a store takes some 6 ms on an idle
	// disk), or the first burst of a storm is queued far past
	// maxStoreWait before the first store is measured.
	firstStoreTime = 50 * time.Millisecond
	// storesPerLink is how many of a link's deliveries go to the store at
	// once. They take its lock in turn, but a few waiting at the lock keep
	// it busy (the runner, which takes it too, then drains the inbox in
	// larger batches): one at a time stored a storm 2.5 times slower.
	storesPerLink = 4
	// maxRetryAfter caps a Retry-After: a sender told to come back later
	// than the stores turn out to need leaves the link idle, and one back
	// too early is only refused again.
	maxRetryAfter = time.Minute
	// defaultNofile stands for a limit that cannot be read.
	defaultNofile = 1024
)

// overloadLimits are the receiver's limits under a descriptor limit of
// nofile: at most conns connections open and handlers requests at their
// disk work. A quarter of the descriptors past the reserve go to
// handlers, the rest to connections.
func overloadLimits(nofile uint64) (conns, handlers int) {
	if nofile == 0 {
		nofile = defaultNofile
	}
	budget := int(min(nofile, 1<<20)) - fdReserve
	handlers = min(max(budget/(4*fdsPerHandler), 1), maxHandlers)
	conns = min(max(budget-handlers*fdsPerHandler, 1), maxConns)
	return conns, handlers
}

// gate admits at most its capacity of requests at once; a request waits
// up to admitWait for a place.
type gate struct{ slots chan struct{} }

func newGate(n int) *gate { return &gate{slots: make(chan struct{}, n)} }

func (g *gate) enter(ctx context.Context) bool {
	select {
	case g.slots <- struct{}{}:
		return true
	default:
	}
	t := time.NewTimer(admitWait)
	defer t.Stop()
	select {
	case g.slots <- struct{}{}:
		return true
	case <-t.C:
		return false
	case <-ctx.Done():
		return false
	}
}

func (g *gate) leave() { <-g.slots }

// busy answers a request the receiver has no room for now: 503, retry
// after a second, and the connection closed so its descriptor is free.
func busy(w http.ResponseWriter) { busyFor(w, retryAfter) }

// busyFor is busy with a Retry-After of secs.
func busyFor(w http.ResponseWriter, secs int) {
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	w.Header().Set("Connection", "close")
	refusal(w, http.StatusServiceUnavailable, "the receiver is busy; retry after "+strconv.Itoa(secs)+" s")
}

// linkQueue takes one link's deliveries to the store storesPerLink at a
// time in this process. They take the watcher's lock in turn anyway, but a
// handler blocked on a file lock holds a thread (and, woken with every
// other, the CPU), where one waiting here is a parked goroutine; and the
// queue's length says how long a newcomer would wait.
type linkQueue struct {
	id      string        // the watcher's
	turn    chan struct{} // capacity storesPerLink
	waiting atomic.Int64  // in the queue, the one storing included
	// took is the last stores' duration (an average: each new one a
	// quarter), in nanoseconds.
	took atomic.Int64

	mu   sync.Mutex
	next time.Time // the last slot given to a refused delivery (later)
	// every is the time between two stores while others wait (an
	// average: each new one an eighth): what the link's stores really
	// take one after another; lastDone when the last ended.
	every    time.Duration
	lastDone time.Time
}

func newLinkQueue(id string) *linkQueue {
	q := &linkQueue{id: id, turn: make(chan struct{}, storesPerLink)}
	q.took.Store(int64(firstStoreTime))
	return q
}

// expected is how long a delivery coming now would wait.
func (q *linkQueue) expected() time.Duration {
	return time.Duration(q.waiting.Load() * q.took.Load() / storesPerLink)
}

// enter waits for the link's turn, unless the wait would pass
// maxStoreWait: then it returns false and the expected wait (the last
// stores' duration times those ahead). A wait that runs past twice that
// (the stores slowed down) ends too, well before the server's write
// timeout would drop the answer.
func (q *linkQueue) enter(ctx context.Context) (time.Duration, bool) {
	ahead := q.waiting.Add(1) - 1
	if wait := time.Duration(ahead * q.took.Load() / storesPerLink); wait > maxStoreWait {
		q.waiting.Add(-1)
		return wait, false
	}
	t := time.NewTimer(2 * maxStoreWait)
	defer t.Stop()
	select {
	case q.turn <- struct{}{}:
		return 0, true
	case <-t.C:
		q.waiting.Add(-1)
		return maxStoreWait, false
	case <-ctx.Done():
		q.waiting.Add(-1)
		return 0, false
	}
}

// later is the Retry-After of a delivery refused when the queue's wait
// is excess over maxStoreWait: the next slot of the link's stores after
// the excess, at the rate it stores. So the refused come back spread out
// at the rate they can be taken: told all "a second", 10,000 senders at
// once came back at thousands a second and the answers starved the
// stores. The rate is twice the measured one (every), or, if that is
// higher, storesPerLink in half the last stores' duration: it is measured
// in the storm, which slows the stores, and slots too far apart leave the
// link idle while its senders wait.
func (q *linkQueue) later(excess time.Duration) time.Duration {
	q.mu.Lock()
	defer q.mu.Unlock()
	now := time.Now()
	step := time.Duration(q.took.Load() / storesPerLink)
	if q.every > 0 {
		step = min(step, q.every)
	}
	step /= 2
	q.next = later(q.next, now.Add(excess)).Add(step)
	if d := q.next.Sub(now); d <= maxRetryAfter {
		return d
	}
	// Past the cap, spread over its second half: all told the cap would
	// come back at once.
	return maxRetryAfter/2 + rand.N(maxRetryAfter/2)
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// leave ends the turn; took is how long its store took.
func (q *linkQueue) leave(took time.Duration) {
	old := q.took.Load()
	q.took.Store(old + (int64(took)-old)/4)
	q.mu.Lock()
	now := time.Now()
	if q.waiting.Load() > 1 && !q.lastDone.IsZero() {
		if q.every == 0 {
			q.every = now.Sub(q.lastDone)
		}
		q.every += (now.Sub(q.lastDone) - q.every) / 8
	}
	q.lastDone = now
	q.mu.Unlock()
	<-q.turn
	q.waiting.Add(-1)
}

// seconds is a wait as a Retry-After: whole seconds, at least 1, at most
// maxRetryAfter.
func seconds(d time.Duration) int {
	return min(max(int((d+time.Second-1)/time.Second), 1), int(maxRetryAfter/time.Second))
}

// limitListener accepts at most n connections open at once; Accept waits
// for one to close (the rest wait in the kernel's listen queue, costing
// this process nothing) so it never fails for want of a descriptor.
type limitListener struct {
	net.Listener
	slots chan struct{}
	done  chan struct{}
	once  sync.Once
}

func limitListen(ln net.Listener, n int) *limitListener {
	return &limitListener{Listener: ln, slots: make(chan struct{}, n), done: make(chan struct{})}
}

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &limitConn{Conn: c, release: sync.OnceFunc(func() { <-l.slots })}, nil
}

func (l *limitListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return l.Listener.Close()
}

type limitConn struct {
	net.Conn
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.release()
	return err
}

// CloseWrite keeps the server's graceful close (a half-close before the
// connection goes) working through the wrapper.
func (c *limitConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
