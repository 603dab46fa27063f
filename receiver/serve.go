package receiver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/internal/inotify"
	"github.com/hangdog/hangdog/internal/safefile"
	"github.com/hangdog/hangdog/watch"
)

var pid = os.Getpid()

// Files under <home>/serve/ (0700): where the running receiver listens
// (address.json, 0600, written once it listens and removed when it
// leaves), the lock it holds while it runs, the lock Ensure takes, and the
// log of a receiver Ensure started.
const (
	serveDir    = "serve"
	addressFile = "address.json"
	runLock     = "run.lock"
	ensureLock  = "ensure.lock"
	logFile     = "serve.log"
)

// Address is what address.json says.
type Address struct {
	Address string `json:"address"` // host:port it listens on
	URL     string `json:"url"`     // the base of every link, http://host:port
	PID     int    `json:"pid"`
	// StartTicks is the process's start time (bgtasks.ProcStartTicks):
	// with the pid, what Keep checks is alive.
	StartTicks uint64    `json:"start_ticks,omitempty"`
	Home       string    `json:"home"` // HomeID
	Started    time.Time `json:"started"`
}

// ServeOptions configure Serve.
type ServeOptions struct {
	Address string // serve.address
	// Stay: run until stopped (under a service manager), not only while a
	// link is active.
	Stay   bool
	Mounts map[string]http.Handler
	Log    io.Writer
	// CheckEvery is how often it looks for active links besides when a
	// watcher changes (default 30 s); Grace how long after its start it
	// stays even with none (default 10 s: the Ensure that started it may
	// come just before its link is written).
	CheckEvery, Grace time.Duration
	// Ready, if set, is called with the address once it listens.
	Ready func(Address)
	// Links, if set, are the trigger links it serves instead of this
	// home's (the fleet receiver's): it then stays until stopped, as with
	// Stay, since no link of this home keeps it.
	Links Links
}

func dirOf(store *watch.Store) string { return filepath.Join(store.Registry().Home(), serveDir) }

// Serve runs the receiver until ctx ends or, without Stay, no link is
// active. One runs per home: a second finds the first's lock and says
// where it listens.
func Serve(ctx context.Context, store *watch.Store, opts ServeOptions) error {
	dir := dirOf(store)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("receiver directory: %w", err)
	}
	lock, err := os.OpenFile(filepath.Join(dir, runLock), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("receiver lock: %w", err)
	}
	defer lock.Close()
	if ok, err := safefile.TryLock(lock); err != nil {
		return fmt.Errorf("receiver lock: %w", err)
	} else if !ok {
		if a, rerr := readAddress(dir); rerr == nil {
			return fmt.Errorf("another hangdog serve (pid %d) already serves this home at %s", a.PID, a.URL)
		}
		return fmt.Errorf("another hangdog serve already serves this home (%s is locked)", filepath.Join(dir, runLock))
	}
	// Made before it listens, so a challenge is answered from the first
	// connection.
	key, err := identityKey(dir)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", opts.Address)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			who := "another program"
			var unproven *unprovenError
			if _, perr := prove(ctx, opts.Address, key, HomeID(store.Registry().Home())); errors.As(perr, &unproven) {
				who = "a listener that is not this home's receiver (" + unproven.why + ")"
			}
			return fmt.Errorf("serve.address %s is in use by %s; choose a free port: `hangdog config set serve.address 127.0.0.1:PORT`", opts.Address, who)
		}
		return fmt.Errorf("listen on serve.address %s: %w", opts.Address, err)
	}
	addr := Address{Address: ln.Addr().String(), PID: pid, StartTicks: startTicks(), Home: HomeID(store.Registry().Home()), Started: time.Now()}
	addr.URL = baseURL(addr.Address)
	rcv := New(store, Options{Mounts: opts.Mounts, Log: opts.Log, Links: opts.Links})
	if opts.Links != nil {
		opts.Stay = true
	}
	srv := &http.Server{
		Handler:           rcv,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }() // ends at Shutdown below
	b, _ := json.MarshalIndent(addr, "", "  ")
	if err := safefile.Write(filepath.Join(dir, addressFile), append(b, '\n')); err != nil {
		_ = srv.Close()
		return err
	}
	defer removeAddress(dir)
	if opts.Log != nil {
		fmt.Fprintf(opts.Log, "%s listening on %s (pid %d)\n", time.Now().UTC().Format(time.RFC3339), addr.URL, pid)
	}
	if opts.Ready != nil {
		opts.Ready(addr)
	}
	var why string
	var serveErr error
	for {
		why, serveErr = rcv.stayWhileLinks(ctx, store, opts, served)
		if why != noLinks {
			break
		}
		// An Ensure may be looking at this receiver right now (a link
		// being created): decide under its lock, and be gone from the
		// address file and the port before it is released, so the next
		// Ensure starts a new receiver instead of trusting this one.
		unlock, err := lockWait(ctx, filepath.Join(dir, ensureLock))
		if err != nil {
			why = "asked to stop"
			break
		}
		if len(activeLinks(store, time.Now())) > 0 {
			unlock()
			continue
		}
		removeAddress(dir)
		_ = ln.Close()
		unlock()
		break
	}
	if opts.Log != nil {
		fmt.Fprintf(opts.Log, "%s stopping: %s\n", time.Now().UTC().Format(time.RFC3339), why)
	}
	shut, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = srv.Shutdown(shut) // answers what is in flight
	if serveErr == nil {
		serveErr = <-served
	}
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) && !errors.Is(serveErr, net.ErrClosed) {
		return fmt.Errorf("receiver: %w", serveErr)
	}
	return err
}

const noLinks = "no link is active"

// removeAddress removes address.json if it is this process's.
func removeAddress(dir string) {
	if a, err := readAddress(dir); err == nil && a.PID == pid {
		_ = os.Remove(filepath.Join(dir, addressFile))
	}
}

func readAddress(dir string) (Address, error) {
	var a Address
	b, err := os.ReadFile(filepath.Join(dir, addressFile))
	if err != nil {
		return a, err
	}
	return a, json.Unmarshal(b, &a)
}

// baseURL is the links' base for a listening address. A receiver on every
// interface is named by this machine's host name.
func baseURL(listen string) string {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return "http://" + listen
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		if h, err := os.Hostname(); err == nil && h != "" {
			host = h
		}
	}
	return "http://" + net.JoinHostPort(host, port)
}

// stayWhileLinks returns when the receiver should stop: ctx ended, the
// server failed, or (without Stay) no link is active past the grace. It
// looks on a timer and whenever the watchers directory or a link
// watcher's directory changes (a create, a pause, a delete).
func (r *Receiver) stayWhileLinks(ctx context.Context, store *watch.Store, opts ServeOptions, served <-chan error) (string, error) {
	every, grace := opts.CheckEvery, opts.Grace
	if every <= 0 {
		every = 30 * time.Second
	}
	if grace <= 0 {
		grace = 10 * time.Second
	}
	start := time.Now()
	fsw, err := fsnotify.NewWatcher()
	var changes <-chan fsnotify.Event
	var lost <-chan error
	if err == nil {
		defer inotify.Close(fsw)
		_ = fsw.Add(filepath.Join(store.Registry().Home(), "watchers"))
		changes, lost = fsw.Events, fsw.Errors
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	var settle <-chan time.Time // a burst of changes is one look
	for {
		select {
		case <-ctx.Done():
			return "asked to stop", nil
		case err := <-served:
			return "the server failed: " + fmt.Sprint(err), err
		case _, ok := <-changes:
			if !ok {
				changes = nil
				continue
			}
			if settle == nil {
				settle = time.After(200 * time.Millisecond)
			}
			continue
		case _, ok := <-lost:
			// An overflowed queue lost changes: look now. (Unread, the
			// errors would also stall the events behind them.)
			if !ok {
				lost = nil
				continue
			}
		case <-settle:
			settle = nil
		case <-tick.C:
		}
		active := activeLinks(store, time.Now())
		if r.local != nil {
			r.local.forget(active)
		}
		if fsw != nil {
			for id := range active {
				_ = fsw.Add(filepath.Join(store.Registry().Home(), "watchers", id))
			}
		}
		if !opts.Stay && len(active) == 0 && time.Since(start) >= grace {
			return noLinks, nil
		}
		if !opts.Stay && len(active) == 0 && settle == nil {
			settle = time.After(grace - time.Since(start) + 10*time.Millisecond)
		}
	}
}

// activeLinks are the link watchers that may still be called: a trigger
// link that is open, an approval whose page is served (watch.ApprovalServed).
func activeLinks(store *watch.Store, now time.Time) map[string]bool {
	all, err := store.List(bgtasksAll)
	out := map[string]bool{}
	if err != nil {
		// An unreadable directory is no reason to drop every link.
		out["?"] = true
		return out
	}
	for _, w := range all {
		if LinkActive(store, w, now) {
			out[w.Spec.ID] = true
		}
	}
	return out
}

var bgtasksAll = bgtasks.Scope{All: true}
