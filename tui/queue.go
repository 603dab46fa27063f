package tui

import (
	"sync"

	"github.com/hangdog/hangdog/taskctl"
)

// linkQueue sits between the goroutine that reads a task's link and the one
// that parses its output. While the parser is busy, output piles up here and
// the next batch is parsed in one go: a flood then mostly scrolls out unseen,
// which the screen skips cheaply. Events keep their place among the output.
type linkQueue struct {
	mu      sync.Mutex
	items   []queued
	bytes   int
	ready   chan struct{}
	space   chan struct{}
	maxSize int
}

// queued is a run of output or one other event.
type queued struct {
	out []byte
	ev  *taskctl.Event
	// outcome is the run's end, the last item: how it came back.
	outcome *taskctl.Outcome
}

// maxQueued bounds what waits for the parser; the reader then waits, which
// holds the command back through the supervisor, as a slow terminal would.
const maxQueued = 8 << 20

func newLinkQueue() *linkQueue {
	return &linkQueue{ready: make(chan struct{}, 1), space: make(chan struct{}, 1), maxSize: maxQueued}
}

func (q *linkQueue) pushOutput(p []byte) {
	for {
		q.mu.Lock()
		if q.bytes < q.maxSize {
			if n := len(q.items); n > 0 && q.items[n-1].out != nil {
				q.items[n-1].out = append(q.items[n-1].out, p...)
			} else {
				q.items = append(q.items, queued{out: append(make([]byte, 0, max(len(p), 64<<10)), p...)})
			}
			q.bytes += len(p)
			q.mu.Unlock()
			notify(q.ready)
			return
		}
		q.mu.Unlock()
		<-q.space
	}
}

func (q *linkQueue) pushEvent(it queued) {
	q.mu.Lock()
	q.items = append(q.items, it)
	q.mu.Unlock()
	notify(q.ready)
}

// takeAll waits for something and returns everything queued.
func (q *linkQueue) takeAll() []queued {
	for {
		q.mu.Lock()
		if len(q.items) > 0 {
			items := q.items
			q.items, q.bytes = nil, 0
			q.mu.Unlock()
			notify(q.space)
			return items
		}
		q.mu.Unlock()
		<-q.ready
	}
}

func notify(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}
