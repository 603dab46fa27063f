package watch

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/internal/inotify"
	"github.com/hangdog/hangdog/internal/safefile"
)

// The home's runner: one process (hangdog-watch, a background task the
// watcher service starts) checks every active watcher of the home. It keeps
// a timer heap of the watchers' next checks, one inotify instance (a watch
// on the watchers directory — a create, a pause and a resume touch its
// changed file, a delete renames a watcher's directory there — and on the
// directory each file, trigger link or approval is told of changes
// through) and, being one process, one HTTP client pool (httpClient). Each
// watcher's state stays on disk, under its own lock, as the step functions
// left it: the runner can be killed at any point and started again.
//
// A check runs in a goroutine of its own with a deadline; at most
// Concurrency run at once. A check past its deadline and a grace gives its
// place back (it is logged as stuck, and its watcher is not checked again
// until it returns); a check that panics marks its watcher damaged with the
// reason. So one watcher never stalls the others.

// Defaults of the home's runner.
const (
	// DefaultConcurrency is how many checks run at once.
	DefaultConcurrency = 8
	// checkDeadline bounds one check (a fetch, a command, a model's
	// verdict): a command watcher's own timeout is added to it.
	checkDeadline = 5 * time.Minute
	// stuckGrace is how long after its deadline a check that has not
	// returned keeps its place among the Concurrency.
	stuckGrace = 10 * time.Second
	// controlSettle spaces the rescans that a burst of changes to the
	// watchers' own files (creates, pauses, this runner's own writes) asks
	// for.
	controlSettle = 50 * time.Millisecond
	// pollControl is how often the watchers directory is read again when
	// inotify is not available.
	pollControl = 3 * time.Second
	// runnerLockWait is how long a runner starting waits for one that is
	// leaving to let go of the home.
	runnerLockWait = 10 * time.Second
)

// A writer that does not replace a file atomically (os.WriteFile, a shell's
// `>`, a log being appended) shows up as a truncate and then one or more
// writes: a check run on the first event reads an empty or half-written
// file and fires on text nobody meant. So a change is checked once the
// source has been quiet for writeSettle — but no later than writeSettleMax
// after the first event, so a file written without pause is still checked.
const (
	writeSettle    = 150 * time.Millisecond
	writeSettleMax = 2 * time.Second
)

// notifyDir is the directory whose inotify events tell a watcher its
// source may have changed, and which of them do; "" for a polled kind.
func notifyDir(s *Store, spec *Spec) (string, func(fsnotify.Event) bool, error) {
	switch spec.Kind {
	case KindFile:
		abs, err := filepath.Abs(spec.Target)
		if err != nil {
			return "", nil, err
		}
		// The directory, so a file replaced by rename (as editors and
		// atomic writers do) is still seen.
		return filepath.Dir(abs), func(ev fsnotify.Event) bool {
			return filepath.Clean(ev.Name) == abs && ev.Op != fsnotify.Chmod
		}, nil
	case KindWebhook:
		// A delivery lands by a rename into the inbox; the temp file
		// before it is a dot file.
		return s.Inbox(spec.ID), func(ev fsnotify.Event) bool {
			return !strings.HasPrefix(filepath.Base(ev.Name), ".") && ev.Has(fsnotify.Create)
		}, nil
	case KindApproval:
		return s.Inbox(spec.ID), func(ev fsnotify.Event) bool {
			return filepath.Base(ev.Name) == decisionFile && ev.Op != fsnotify.Chmod
		}, nil
	}
	return "", nil, nil
}

// Files of the home's runner in the watchers directory.
const (
	runnerLockFile  = "runner.lock"  // held by the running runner
	runnerStartFile = "runner-start" // held while a runner is started or leaves
	runnerTaskFile  = "runner.task"  // the running runner's task id
	changedFile     = "changed"      // touched to have the runner look at every watcher again
)

// HomeRunner runs every active watcher of the store's home until none is
// active or ctx ends.
type HomeRunner struct {
	Store *Store
	// Log gets one line per check with something to say (a baseline, a
	// change, a fire, a skip, an error; a quiet check is only counted),
	// each naming its watcher (the runner task's output: `bg logs`).
	// Written from many goroutines, one line at a time.
	Log io.Writer
	// TaskID is the runner's own task, recorded in the state of each
	// watcher it runs; "" records nothing.
	TaskID string
	// JudgeFor resolves the decision model a watcher's condition is asked
	// of, with the line saying so; nil asks none.
	JudgeFor func(*Spec) (Judge, string)
	// Concurrency bounds the checks running at once; 0 is
	// DefaultConcurrency.
	Concurrency int
	// Companion, when set, starts what a watcher needs beside its checks
	// while the runner runs it (a link's deliveries from the fleet, its
	// receiver kept running); the stop it returns ends it and waits, when
	// the watcher is dropped or the runner ends. Called on the loop.
	Companion func(ctx context.Context, spec *Spec) (stop func())
	// Now, for tests: the clock each watcher's steps read.
	Now func() time.Time

	// For tests: only this watcher is run (Runner.run); a shorter fetch
	// timeout; no inotify; a hook after a fire is reserved.
	only         string
	template     *Runner
	httpTimeout  time.Duration
	noNotify     bool
	afterReserve func()
	beforeCheck  func(id string)
	deadline     time.Duration // instead of checkDeadline and stuckGrace

	// The loop's own; touched by its goroutine only.
	slots   map[string]*slot
	queue   timerHeap
	dirs    map[string]map[*slot]bool // a source's directory: the slots told of it
	watched map[string]int            // directories with an inotify watch, by users
	fsw     *fsnotify.Watcher
	running int // checks holding a place among the Concurrency
	done    chan checkDone
	quit    chan struct{} // closed when Run returns: a late report goes nowhere
	// homeGone: the watchers directory no longer exists (the home was
	// removed), so the runner leaves.
	homeGone bool
	logMu    sync.Mutex
}

// slot is one watcher as the runner schedules it.
type slot struct {
	id        string
	r         *Runner
	spec      *Spec
	started   bool      // its start (pending deliveries, the log line) ran
	notified  bool      // its source's changes come by inotify
	due       time.Time // next check (or its start), while in the heap
	changed   time.Time // first change not yet checked; zero: none
	lastCheck time.Time // checks stay an interval apart, told or not
	running   bool
	seq       int  // checks started
	stuck     bool // running past its deadline: its place was given back
	cancel    context.CancelFunc
	companion func() // stops what Companion started; nil: none
	srcDir    string
	keep      func(fsnotify.Event) bool
	index     int // in the heap; -1 when out of it
}

type checkDone struct {
	s       *slot
	seq     int  // which check of the slot's
	stuck   bool // the watchdog's report: past its deadline, not ended
	stop    bool
	err     error
	panicky string // what a panic said
}

// Run runs the home's watchers. It returns when no watcher is active (once
// Store.idle agrees: it looks again under the start lock, so a watcher
// created meanwhile is either seen or starts a new runner) or ctx ends.
// Another runner holding the home is not an error: this one leaves.
func (h *HomeRunner) Run(ctx context.Context) error {
	release, ok, err := h.Store.holdRunner(ctx, h.TaskID)
	if err != nil || !ok {
		if !ok && err == nil {
			h.logf("", "another runner runs this home's watchers; leaving")
		}
		return err
	}
	defer release()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer func() { // the watchers' companions end with the runner
		for _, s := range h.slots {
			if s.companion != nil {
				s.companion()
			}
		}
	}()
	h.slots = map[string]*slot{}
	h.dirs = map[string]map[*slot]bool{}
	h.watched = map[string]int{}
	h.done = make(chan checkDone)
	h.quit = make(chan struct{})
	defer close(h.quit)
	var events <-chan fsnotify.Event
	if !h.noNotify {
		if w, err := fsnotify.NewWatcher(); err != nil {
			h.logf("", "no change notifications (%v): every watcher polls on its interval", err)
		} else {
			h.fsw = w
			var wg sync.WaitGroup
			events = relayEvents(ctx, w, filepath.Join(h.Store.dir, changedFile), &wg)
			defer func() {
				cancel()
				_ = inotify.Close(w)
				wg.Wait()
			}()
			if err := h.addWatch(h.Store.dir); err != nil {
				h.logf("", "no change notifications for the watchers directory (%v): looking every %v", err, pollControl)
			}
		}
	}
	poll := time.NewTicker(pollControl)
	defer poll.Stop()
	if h.fsw != nil && h.watched[h.Store.dir] > 0 {
		poll.Stop()
	}
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	rescan := time.NewTimer(time.Hour)
	defer rescan.Stop()
	rescanAll, rescanIDs := false, map[string]bool{}
	rescanPending := false
	askRescan := func(id string) {
		if id == "" {
			rescanAll = true
		} else {
			rescanIDs[id] = true
		}
		if !rescanPending {
			rescanPending = true
			rescan.Reset(controlSettle)
		}
	}
	h.scan(ctx, true, nil)
	for {
		if h.homeGone {
			h.logf("", "the watchers directory %s is gone (its home was removed); leaving", h.Store.dir)
			return nil
		}
		h.dispatch(ctx)
		if len(h.slots) == 0 && h.running == 0 && !rescanPending {
			if h.Store.idle(h.only) {
				h.logf("", "no watcher is active; leaving")
				return nil
			}
			askRescan("") // one was made meanwhile
		}
		wait := time.Hour
		if len(h.queue) > 0 {
			wait = max(time.Until(h.queue[0].due), 0)
			if h.running >= h.concurrency() {
				wait = time.Hour // a check's end dispatches the next
			}
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			for _, s := range h.slots {
				if s.cancel != nil {
					s.cancel()
				}
			}
			h.waitChecks()
			return nil
		case <-timer.C:
		case <-poll.C:
			askRescan("")
		case <-rescan.C:
			rescanPending = false
			ids := rescanIDs
			rescanIDs = map[string]bool{}
			all := rescanAll
			rescanAll = false
			h.scan(ctx, all, ids)
		case ev := <-events:
			h.event(ev, askRescan)
		case d := <-h.done:
			h.finished(d)
		}
		timer.Stop()
	}
}

func (h *HomeRunner) concurrency() int {
	if h.Concurrency > 0 {
		return h.Concurrency
	}
	return DefaultConcurrency
}

func (h *HomeRunner) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}

// logf writes one line of the runner's log, for watcher id ("" for the
// runner itself).
func (h *HomeRunner) logf(id, format string, args ...any) {
	if h.Log == nil {
		return
	}
	who := "runner"
	if id != "" {
		who = id
	}
	line := h.now().UTC().Format(time.RFC3339) + " " + who + " " + fmt.Sprintf(format, args...) + "\n"
	h.logMu.Lock()
	defer h.logMu.Unlock()
	_, _ = io.WriteString(h.Log, line)
}

// lineWriter is the runner's log as one watcher's Runner writes it: each
// Write is one whole line, written under the runner's lock.
type lineWriter struct{ h *HomeRunner }

func (w lineWriter) Write(p []byte) (int, error) {
	w.h.logMu.Lock()
	defer w.h.logMu.Unlock()
	return w.h.Log.Write(p)
}

// relayEvents reads w's events into an unbounded queue, so the loop can
// add and remove watches (which take fsnotify's lock) while fsnotify's
// reader, holding that lock, would otherwise wait for the loop to read.
// Its goroutine ends when ctx ends or w is closed; wg waits for it.
func relayEvents(ctx context.Context, w *fsnotify.Watcher, changed string, wg *sync.WaitGroup) <-chan fsnotify.Event {
	out := make(chan fsnotify.Event)
	wg.Add(1)
	go func() {
		defer wg.Done()
		var q []fsnotify.Event
		in, errs := w.Events, w.Errors
		for in != nil {
			var send chan fsnotify.Event
			var next fsnotify.Event
			if len(q) > 0 {
				send, next = out, q[0]
			}
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-in:
				if !ok {
					in = nil
					continue
				}
				q = append(q, ev)
			case _, ok := <-errs:
				if !ok {
					errs = nil
					continue
				}
				// An overflow lost events: look at everything again.
				q = append(q, fsnotify.Event{Name: changed, Op: fsnotify.Create})
			case send <- next:
				q = q[1:]
			}
		}
	}()
	return out
}

// scan looks at the watchers again: all of them, or those named. A new
// active one is adopted (its start is due at once); one no longer active
// is dropped, its running check cancelled.
func (h *HomeRunner) scan(ctx context.Context, all bool, ids map[string]bool) {
	if all {
		ids = map[string]bool{}
		for id := range h.slots {
			ids[id] = true
		}
		ents, err := os.ReadDir(h.Store.dir)
		if errors.Is(err, fs.ErrNotExist) {
			// The home was removed: nothing is left to run, and looking
			// again every few seconds would keep this process for ever.
			h.homeGone = true
			return
		}
		if err != nil {
			h.logf("", "list the watchers: %v", err)
		}
		for _, e := range ents {
			if e.IsDir() && ValidID(e.Name()) {
				ids[e.Name()] = true
			}
		}
	}
	for id := range ids {
		if h.only != "" && id != h.only {
			continue
		}
		var spec *Spec
		paused := false
		err := h.Store.read(id, func(sp *Spec, st *State) error {
			// Events left queued by a runner killed are delivered even
			// for a watcher that stopped with them (begin).
			spec, paused = sp, st.Paused && len(st.Pending) == 0
			return nil
		})
		s := h.slots[id]
		switch {
		case err == nil && !paused:
			if s == nil {
				h.adopt(ctx, id, spec)
			}
		case s == nil:
		case errors.Is(err, ErrNotFound):
			h.logf(id, "deleted; stopping")
			h.drop(s)
		case errors.Is(err, ErrDamaged):
			h.logf(id, "%v; stopping", err)
			h.drop(s)
		case err != nil:
			h.logf(id, "read: %v", err) // tried again at the next change
		default:
			h.logf(id, "paused; stopping")
			h.drop(s)
		}
	}
}

// adopt starts running watcher id: its directory and its source's are
// watched, and its start is due now.
func (h *HomeRunner) adopt(ctx context.Context, id string, spec *Spec) {
	r := &Runner{Store: h.Store, ID: id, Log: lineWriter{h}, Now: h.Now, taskID: h.TaskID,
		afterReserve: h.afterReserve, httpTimeout: h.httpTimeout}
	if h.Log == nil {
		r.Log = nil
	}
	if h.template != nil {
		r.Judge, r.JudgeNote, r.Now = h.template.Judge, h.template.JudgeNote, h.template.Now
	} else if h.JudgeFor != nil {
		r.Judge, r.JudgeNote = h.JudgeFor(spec)
	}
	s := &slot{id: id, r: r, spec: spec, index: -1}
	h.slots[id] = s
	if h.Companion != nil {
		s.companion = h.Companion(ctx, spec)
	}
	if h.fsw != nil {
		if dir, keep, err := notifyDir(h.Store, spec); err != nil {
			h.logf(id, "no change notifications (%v): polling every %v", err, spec.Interval)
		} else if dir != "" {
			if err := h.addWatch(dir); err != nil {
				h.logf(id, "no change notifications (%v): polling every %v", err, spec.Interval)
			} else {
				s.srcDir, s.keep, s.notified = dir, keep, true
				if h.dirs[dir] == nil {
					h.dirs[dir] = map[*slot]bool{}
				}
				h.dirs[dir][s] = true
			}
		}
	}
	s.due = time.Now() // the schedule is the wall clock's, whatever Now says
	heap.Push(&h.queue, s)
}

// drop stops running s: its check (if one runs) is cancelled and its
// watches go.
func (h *HomeRunner) drop(s *slot) {
	delete(h.slots, s.id)
	if s.index >= 0 {
		heap.Remove(&h.queue, s.index)
	}
	if s.cancel != nil {
		s.cancel()
	}
	if s.companion != nil {
		s.companion()
		s.companion = nil
	}
	if h.fsw == nil {
		return
	}
	if s.srcDir != "" {
		delete(h.dirs[s.srcDir], s)
		if len(h.dirs[s.srcDir]) == 0 {
			delete(h.dirs, s.srcDir)
		}
		h.removeWatch(s.srcDir)
	}
}

func (h *HomeRunner) addWatch(dir string) error {
	if h.watched[dir] == 0 {
		if err := h.fsw.Add(dir); err != nil {
			return err
		}
	}
	h.watched[dir]++
	return nil
}

func (h *HomeRunner) removeWatch(dir string) {
	if h.watched[dir] == 0 {
		return
	}
	h.watched[dir]--
	if h.watched[dir] == 0 {
		delete(h.watched, dir)
		_ = h.fsw.Remove(dir) // gone with its directory, perhaps
	}
}

// event routes one inotify event: a change to the watchers directory or a
// watcher's own files asks for a rescan; a change a source is told of
// brings its watcher's check forward.
func (h *HomeRunner) event(ev fsnotify.Event, askRescan func(string)) {
	name := filepath.Clean(ev.Name)
	dir, base := filepath.Dir(name), filepath.Base(name)
	switch {
	case dir == h.Store.dir:
		// A watcher made, moved away (a delete renames it first) or gone,
		// or the changed file (a create, a pause, a resume); the rest
		// (locks, the counter, temp files) is nothing to the runner. A
		// watcher's own directory is not watched: every check rewrites its
		// state, and a wake-up per check would be the runner's own.
		if base == changedFile {
			askRescan("")
		} else if ValidID(base) {
			askRescan(base)
		}
		return
	}
	for s := range h.dirs[dir] {
		if s.keep(ev) {
			h.changed(s)
		}
	}
}

// changed brings a told watcher's check forward: once its source has been
// quiet for writeSettle (at most writeSettleMax after the first change),
// and never sooner than an interval after its last check.
func (h *HomeRunner) changed(s *slot) {
	now := time.Now()
	if s.changed.IsZero() {
		s.changed = now
	}
	if s.running {
		return // scheduled when the check ends
	}
	h.schedule(s, h.changeDue(s, now))
}

func (h *HomeRunner) changeDue(s *slot, now time.Time) time.Time {
	at := now.Add(min(writeSettle, max(s.changed.Add(writeSettleMax).Sub(now), 0)))
	if !s.lastCheck.IsZero() {
		at = maxTime(at, s.lastCheck.Add(s.spec.Interval))
	}
	return at
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func (h *HomeRunner) schedule(s *slot, due time.Time) {
	if s.spec.ExpiresAt != nil {
		if exp := s.spec.ExpiresAt.Add(10 * time.Millisecond); exp.Before(due) {
			due = exp
		}
	}
	s.due = due
	if s.index >= 0 {
		heap.Fix(&h.queue, s.index)
	} else {
		heap.Push(&h.queue, s)
	}
}

// dispatch starts the checks that are due, as many as have a place.
func (h *HomeRunner) dispatch(ctx context.Context) {
	now := time.Now()
	for len(h.queue) > 0 && h.running < h.concurrency() && !h.queue[0].due.After(now) {
		s := heap.Pop(&h.queue).(*slot)
		h.start(ctx, s)
	}
}

// start runs one check of s in a goroutine of its own, with a deadline; a
// panic in it is recovered and reported. A check that outlives its
// deadline and stuckGrace gives its place back (finished sees it later).
func (h *HomeRunner) start(ctx context.Context, s *slot) {
	deadline, grace := checkDeadline, stuckGrace
	if s.spec.Timeout > 0 {
		deadline += s.spec.Timeout
	}
	if h.deadline > 0 {
		deadline, grace = h.deadline, h.deadline
	}
	cctx, cancel := context.WithTimeout(ctx, deadline)
	s.seq++
	seq := s.seq
	s.cancel, s.running, s.stuck = cancel, true, false
	h.running++
	first := !s.started
	if !first {
		s.lastCheck, s.changed = time.Now(), time.Time{}
	}
	r := s.r
	watchdog := time.AfterFunc(deadline+grace, func() {
		select {
		case h.done <- checkDone{s: s, seq: seq, stuck: true}:
		case <-h.quit:
		}
	})
	go func() { // owned by the loop, which cancels it and waits (waitChecks)
		d := checkDone{s: s, seq: seq}
		defer func() {
			watchdog.Stop()
			cancel()
			if p := recover(); p != nil {
				d.panicky = fmt.Sprintf("%v", p)
				h.logf(s.id, "check panicked: %v\n%s", p, debug.Stack())
			}
			select {
			case h.done <- d:
			case <-h.quit:
			}
		}()
		if first {
			d.stop, d.err = r.begin()
			return
		}
		if h.beforeCheck != nil {
			h.beforeCheck(s.id)
		}
		d.stop, d.err = r.Tick(cctx)
	}()
}

// finished handles a check's end (or its watchdog's report).
func (h *HomeRunner) finished(d checkDone) {
	s := d.s
	if d.stuck {
		if s.running && s.seq == d.seq && !s.stuck {
			s.stuck = true
			h.running--
			h.logf(s.id, "check still running past its deadline; its place goes to the others until it returns")
		}
		return
	}
	if !s.stuck {
		h.running--
	}
	s.running, s.stuck, s.cancel = false, false, nil
	first := !s.started
	s.started = true
	if d.err != nil {
		h.logf(s.id, "error: %v", d.err)
	}
	if h.slots[s.id] != s {
		return // dropped while it ran
	}
	if d.panicky != "" {
		h.Store.markDamaged(s.id, "a check panicked: "+d.panicky)
		h.drop(s)
		return
	}
	if d.stop {
		h.drop(s)
		return
	}
	now := time.Now()
	interval := s.spec.Interval
	next := interval
	switch {
	case first:
	case s.r.more:
		next = 0 // a backlog: drain on at once
	case s.r.awaiting:
	case s.notified:
		next = max(10*interval, 5*time.Minute) // a safety net only
	}
	due := nextCheck(now, next, s.spec.network())
	if next == 0 {
		due = now
	}
	if !s.changed.IsZero() {
		due = minTime(due, h.changeDue(s, time.Now()))
	}
	h.schedule(s, due)
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// waitChecks waits for the running checks, cancelled, to end; one that
// ignores its cancellation past stuckGrace is left behind (its report
// goes nowhere once Run returns).
func (h *HomeRunner) waitChecks() {
	limit := time.NewTimer(stuckGrace)
	defer limit.Stop()
	for h.running > 0 {
		select {
		case d := <-h.done:
			if !d.stuck && !d.s.stuck {
				h.running--
			}
		case <-limit.C:
			return
		}
	}
}

// timerHeap orders slots by their next check.
type timerHeap []*slot

func (q timerHeap) Len() int           { return len(q) }
func (q timerHeap) Less(i, j int) bool { return q[i].due.Before(q[j].due) }
func (q timerHeap) Swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].index, q[j].index = i, j
}
func (q *timerHeap) Push(x any) {
	s := x.(*slot)
	s.index = len(*q)
	*q = append(*q, s)
}
func (q *timerHeap) Pop() any {
	old := *q
	s := old[len(old)-1]
	old[len(old)-1] = nil
	*q = old[:len(old)-1]
	s.index = -1
	return s
}

// begin is a watcher's start in this runner: the events a previous runner
// queued and did not deliver go out, and the log says what it watches.
func (r *Runner) begin() (stop bool, err error) {
	if err := r.deliverPending(); err != nil {
		return false, err
	}
	if stop, err := r.stopped(); stop || err != nil {
		return stop, err
	}
	var spec *Spec
	err = r.Store.update(r.ID, func(sp *Spec, st *State) error {
		spec = sp
		if r.taskID == "" || st.TaskID == r.taskID {
			return errSkipWrite
		}
		st.TaskID = r.taskID // the runner that runs it now
		return nil
	})
	if err != nil && !errors.Is(err, errSkipWrite) {
		return errors.Is(err, ErrNotFound), nil
	}
	r.logf("watching %s", spec.Label())
	if spec.Condition != "" && r.JudgeNote != "" {
		r.logf("%s", r.JudgeNote)
	}
	return false, nil
}

// run runs this one watcher as the home's runner would, until it is
// paused, deleted or expired, or ctx ends (tests).
func (r *Runner) run(ctx context.Context) error {
	h := &HomeRunner{Store: r.Store, Log: r.Log, only: r.ID, template: r,
		httpTimeout: r.httpTimeout, noNotify: r.noNotify, afterReserve: r.afterReserve}
	return h.Run(ctx)
}

// holdRunner takes the home's runner lock, waiting a little for a runner
// that is leaving; ok=false: another runner holds it. The task id, when
// given, is recorded as the runner's.
func (s *Store) holdRunner(ctx context.Context, taskID string) (release func(), ok bool, err error) {
	f, err := os.OpenFile(filepath.Join(s.dir, runnerLockFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, false, fmt.Errorf("the runner's lock: %w", err)
	}
	wctx, cancel := context.WithTimeout(ctx, runnerLockWait)
	defer cancel()
	if err := safefile.LockContext(wctx, f); err != nil {
		f.Close()
		if ctx.Err() == nil {
			return nil, false, nil
		}
		return nil, false, ctx.Err()
	}
	if taskID != "" {
		err := safefile.WithLock(filepath.Join(s.dir, runnerStartFile), func() error {
			return safefile.Write(filepath.Join(s.dir, runnerTaskFile), []byte(taskID+"\n"))
		})
		if err != nil {
			safefile.Unlock(f)
			f.Close()
			return nil, false, err
		}
	}
	return func() { safefile.Unlock(f); f.Close() }, true, nil
}

// idle is asked when the runner has no active watcher: under the start
// lock, it looks once more and, if none is active, clears the runner's
// task so the next create or resume starts a new one. only, when given,
// is the one watcher a test runs: then the runner leaves without looking.
func (s *Store) idle(only string) bool {
	if only != "" {
		return true
	}
	leave := false
	_ = safefile.WithLock(filepath.Join(s.dir, runnerStartFile), func() error {
		all, err := s.List(bgtasks.Scope{All: true})
		if err != nil {
			return err
		}
		for _, w := range all {
			if w.Damaged == "" && (!w.State.Paused || len(w.State.Pending) > 0) {
				return nil
			}
		}
		leave = true
		return os.Remove(filepath.Join(s.dir, runnerTaskFile))
	})
	return leave
}

// RunnerTask is the home runner's task id as last recorded ("" if none
// is), read under the start lock by the caller that may start one.
func (s *Store) RunnerTask() string {
	b, err := os.ReadFile(filepath.Join(s.dir, runnerTaskFile))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// WithRunnerStart runs fn under the lock a runner's start and its leaving
// take: fn reads RunnerTask and, if it is not running, starts one and
// records it (SetRunnerTask).
func (s *Store) WithRunnerStart(fn func() error) error {
	return safefile.WithLock(filepath.Join(s.dir, runnerStartFile), fn)
}

// SetRunnerTask records the runner's task id; called under WithRunnerStart.
func (s *Store) SetRunnerTask(taskID string) error {
	return safefile.Write(filepath.Join(s.dir, runnerTaskFile), []byte(taskID+"\n"))
}

// touchChanged has a running runner look at every watcher again (a
// resume: the runner does not watch a paused watcher's files).
func (s *Store) touchChanged() {
	_ = safefile.Write(filepath.Join(s.dir, changedFile), []byte(time.Now().UTC().Format(time.RFC3339Nano)+"\n"))
}

// markDamaged records that a watcher cannot be run (its check panicked):
// it is listed as damaged with the reason, and can only be removed.
func (s *Store) markDamaged(id, why string) {
	_ = s.update(id, func(_ *Spec, st *State) error { st.Damaged = why; return nil })
}
