package receiver

import (
	"errors"
	"fmt"
	"time"

	"github.com/hangdog/hangdog/watch"
)

// Link is a trigger link as the receiver checks a delivery against it.
type Link struct {
	// ID names it in the log (a watcher's id, never its token).
	ID string
	// Key and Ref are the Links' own handles on it (the local store: the
	// watcher's id and its owner; the fleet: the token's hash and the
	// link's record).
	Key        string
	Ref        any
	Signature  string // the scheme, "" for an unsigned link
	RatePerMin int
}

// ErrUnavailable wraps a Links error that is no answer about the link: the
// store behind it cannot be reached (the fleet's servers). The sender is
// told to try again (503), not that the link is unknown.
var ErrUnavailable = errors.New("the links' store is unavailable")

// Links is where the receiver finds trigger links, keeps their rate
// windows and hands the deliveries it accepted. The local store's
// (StoreLinks) is the default; the fleet receiver (`hangdog serve` with
// serve.sink) has its own over NATS JetStream. The receiver's checks and
// their order are the same for both (hook).
type Links interface {
	// Open returns the link of token if it may take a delivery now; an
	// unknown, malformed or closed one is an error (all answered 404).
	Open(token string, now time.Time) (Link, error)
	// Secret is a signed link's signing secret.
	Secret(l Link) (string, error)
	// Take spends one token of the link's window of that kind ("rate" or
	// "unverified"), perMin a minute, or says how long until one is there.
	Take(l Link, kind string, perMin int, now time.Time) (time.Duration, bool, error)
	// Accept keeps the delivery durably before it returns: a repeat is
	// duplicate=true and kept once; watch.ErrLinkClosed if the link
	// closed meanwhile.
	Accept(l Link, d watch.Delivery, now time.Time) (duplicate bool, err error)
}

// StoreLinks are the trigger links of this home: deliveries go into the
// watcher's inbox (watch.Store.AcceptDelivery) and the rate windows are
// kept in memory.
type StoreLinks struct {
	store   *watch.Store
	windows windows
}

// NewStoreLinks are store's trigger links.
func NewStoreLinks(store *watch.Store) *StoreLinks {
	return &StoreLinks{store: store, windows: windows{buckets: map[string]*Bucket{}}}
}

// Open finds the watcher by its token's hash; a closed link is not found.
func (s *StoreLinks) Open(token string, now time.Time) (Link, error) {
	w, err := s.store.ByLinkToken(token)
	if err != nil {
		return Link{}, err
	}
	if !s.store.WebhookOpen(w, now) {
		return Link{}, fmt.Errorf("link %s: %w", w.Spec.ID, watch.ErrLinkClosed)
	}
	l := w.Spec.Link
	return Link{ID: w.Spec.ID, Key: w.Spec.ID, Ref: w.Spec.Owner, Signature: l.Signature, RatePerMin: l.RatePerMin}, nil
}

// Secret reads the watcher's link.secret.
func (s *StoreLinks) Secret(l Link) (string, error) {
	owner, _ := l.Ref.(string)
	return s.store.LinkSecret(l.Key, owner)
}

// Take uses the in-memory window.
func (s *StoreLinks) Take(l Link, kind string, perMin int, now time.Time) (time.Duration, bool, error) {
	wait, ok := s.windows.take(l.Key, kind, perMin, now)
	return wait, ok, nil
}

// Accept stores the delivery in the watcher's inbox.
func (s *StoreLinks) Accept(l Link, d watch.Delivery, now time.Time) (bool, error) {
	return s.store.AcceptDelivery(l.Key, d, now)
}

// forget drops the windows of links no longer active.
func (s *StoreLinks) forget(active map[string]bool) { s.windows.forget(active) }
