//go:build linux

// Command refsched is the single-scheduler reference scripts/bench-watchers.sh
// measures hangdog's watchers against, in the same run: the same work as
// hangdog's file and http watchers with the least machinery. One process,
// one inotify instance on the files' directories, one timer heap, one
// http.Client. A file is read and hashed when inotify says it changed (once
// it has been quiet for 150 ms, hangdog's settle); a URL is fetched (with
// If-None-Match / If-Modified-Since, as hangdog sends them), read and hashed
// every interval, each with hangdog's ±10 % jitter so the checks spread as
// hangdog's do. It prints a line only when something changed, and keeps
// its state in memory: no files, no log, no supervisor.
//
// Standard library only, so that nothing it links costs what hangdog's
// programs would not.
//
//	refsched [-interval 60s] TARGET...   (a TARGET starting http:// or https:// is a URL, else a file)
//
// It runs until SIGINT or SIGTERM.
package main

import (
	"bytes"
	"container/heap"
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// settle is how long a file must be quiet after a change before it is read:
// hangdog's writeSettle.
const settle = 150 * time.Millisecond

// target is one watched file or URL.
type target struct {
	name     string
	url      bool
	sum      [sha256.Size]byte
	seen     bool
	etag     string
	modified string
	due      time.Time
	index    int // in the heap; -1 when out of it
	busy     bool
}

type timerHeap []*target

func (h timerHeap) Len() int           { return len(h) }
func (h timerHeap) Less(i, j int) bool { return h[i].due.Before(h[j].due) }
func (h timerHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i]; h[i].index = i; h[j].index = j }
func (h *timerHeap) Push(x any)        { t := x.(*target); t.index = len(*h); *h = append(*h, t) }
func (h *timerHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	old[len(old)-1] = nil
	t.index = -1
	*h = old[:len(old)-1]
	return t
}

type fetched struct {
	t                    *target
	body                 []byte
	etag, modified       string
	notModified, errored bool
}

func main() {
	interval := flag.Duration("interval", time.Minute, "how often each URL is fetched")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: refsched [-interval 60s] FILE|URL...")
		os.Exit(2)
	}
	// hangdog's runner runs on one P (watchctl/runner) for fewer
	// thread hand-offs; so does the reference, so that the comparison is
	// of the work and not of that setting.
	runtime.GOMAXPROCS(1)

	client := &http.Client{Timeout: 30 * time.Second}
	var queue timerHeap
	byPath := map[string]*target{}
	var dirs []string
	now := time.Now()
	for _, a := range flag.Args() {
		t := &target{name: a, index: -1, url: strings.HasPrefix(a, "http://") || strings.HasPrefix(a, "https://")}
		if t.url {
			t.due = now // the baseline
			heap.Push(&queue, t)
			continue
		}
		abs, err := filepath.Abs(a)
		if err != nil {
			fatal(err)
		}
		t.name = abs
		byPath[abs] = t
		dirs = append(dirs, filepath.Dir(abs))
		check(t) // the baseline
	}

	events := make(chan string, 64)
	if len(dirs) > 0 {
		fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC | syscall.IN_NONBLOCK)
		if err != nil {
			fatal(fmt.Errorf("inotify: %w", err))
		}
		wds := map[int32]string{} // watch descriptor: its directory
		for _, d := range dirs {
			wd, err := syscall.InotifyAddWatch(fd, d, syscall.IN_CLOSE_WRITE|syscall.IN_MODIFY|syscall.IN_MOVED_TO|syscall.IN_CREATE|syscall.IN_DELETE)
			if err != nil {
				fatal(fmt.Errorf("inotify %s: %w", d, err))
			}
			wds[int32(wd)] = d // the same directory twice is the same wd
		}
		// A non-blocking fd in an os.File waits in the runtime's poller,
		// not in a thread of its own.
		f := os.NewFile(uintptr(fd), "inotify")
		go readEvents(f, wds, events)
	}

	results := make(chan fetched, len(queue))
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	timer := time.NewTimer(time.Hour)
	for {
		if len(queue) > 0 {
			timer.Reset(time.Until(queue[0].due))
		}
		select {
		case <-sig:
			return
		case path := <-events:
			if t := byPath[path]; t != nil {
				t.due = time.Now().Add(settle)
				if t.index >= 0 {
					heap.Fix(&queue, t.index)
				} else {
					heap.Push(&queue, t)
				}
			}
		case r := <-results:
			r.t.busy = false
			if !r.errored && !r.notModified {
				r.t.etag, r.t.modified = r.etag, r.modified
				observe(r.t, r.body)
			}
			r.t.due = next(time.Now(), *interval)
			heap.Push(&queue, r.t)
		case <-timer.C:
			now := time.Now()
			for len(queue) > 0 && !queue[0].due.After(now) {
				t := heap.Pop(&queue).(*target)
				if !t.url {
					check(t)
					continue
				}
				if !t.busy {
					t.busy = true
					go fetch(client, t, results)
				}
			}
		}
	}
}

// next is hangdog's nextCheck: the interval with ±10 % jitter.
func next(now time.Time, interval time.Duration) time.Time {
	return now.Add(interval + time.Duration((rand.Float64()*0.2-0.1)*float64(interval)))
}

func fetch(client *http.Client, t *target, out chan<- fetched) {
	r := fetched{t: t}
	defer func() { out <- r }()
	req, err := http.NewRequest(http.MethodGet, t.name, nil)
	if err != nil {
		r.errored = true
		return
	}
	if t.etag != "" {
		req.Header.Set("If-None-Match", t.etag)
	}
	if t.modified != "" {
		req.Header.Set("If-Modified-Since", t.modified)
	}
	resp, err := client.Do(req)
	if err != nil {
		r.errored = true
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotModified {
		r.notModified = true
		return
	}
	r.body, err = io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	r.errored = err != nil || resp.StatusCode >= 400
	r.etag, r.modified = resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
}

func check(t *target) {
	b, err := os.ReadFile(t.name)
	if err != nil {
		b = nil // gone: hashed as empty, so its return is a change
	}
	observe(t, b)
}

// observe hashes what was read and says so when it differs from before.
func observe(t *target, b []byte) {
	sum := sha256.Sum256(bytes.TrimSpace(b))
	if t.seen && sum != t.sum {
		fmt.Printf("%s changed\n", t.name)
	}
	t.sum, t.seen = sum, true
}

// readEvents sends the path of each inotify event read from f, whose
// watch descriptors are wds's.
func readEvents(f *os.File, wds map[int32]string, out chan<- string) {
	buf := make([]byte, 64*(syscall.SizeofInotifyEvent+syscall.NAME_MAX+1))
	for {
		n, err := f.Read(buf)
		if err != nil {
			fatal(fmt.Errorf("read inotify: %w", err))
		}
		for off := 0; off+syscall.SizeofInotifyEvent <= n; {
			ev := (*syscall.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := buf[off+syscall.SizeofInotifyEvent : off+syscall.SizeofInotifyEvent+int(ev.Len)]
			off += syscall.SizeofInotifyEvent + int(ev.Len)
			out <- filepath.Join(wds[ev.Wd], strings.TrimRight(string(name), "\x00"))
		}
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "refsched:", err)
	os.Exit(1)
}
