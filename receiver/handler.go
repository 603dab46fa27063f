// Package receiver owns hangdog's one local HTTP server for links (`hangdog
// serve`): the handler that takes trigger-link deliveries at
// POST /hook/<token> and mounts other link handlers (approval pages under
// /approve/), the server process that listens at serve.address, writes
// where it listens and leaves when no link is active, Ensure, which
// starts that process on demand, Keep, which starts it again if it dies
// while a link is open, and the proof of its identity (identity.go) that
// tells it from another user's listener on its port. Everything it accepts is on disk (the
// watcher's inbox, through watch.Store) before it answers; it keeps only
// rate windows in memory. Where links are found and deliveries kept is a
// Links: the home's store by default, or the fleet's (Options.Links) when
// `hangdog serve` is the one receiver of many sandboxes.
//
// It is linked only by the full CLI.
package receiver

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hangdog/hangdog/internal/webhooksig"
	"github.com/hangdog/hangdog/watch"
)

// MaxPayload is the largest delivery a trigger link takes; a larger one is
// answered 413.
const MaxPayload = 1 << 20

// Paths.
const (
	HookPrefix = "/hook/"
	// IdentityPath answers who this receiver is and, given a challenge,
	// proves it with the home's key, so a client can tell hangdog's
	// receiver for its home from a stale address or another program (of
	// another user) on the port.
	IdentityPath = "/.hangdog/receiver"
)

// Options configure a Receiver.
type Options struct {
	// Mounts are more handlers, by path prefix: the approval pages give
	// {"/approve/": approval.Handler(store)}. A prefix ends in "/" and
	// must not be /hook/. Mount adds one later, before serving.
	Mounts map[string]http.Handler
	// Log gets one line per answered delivery (never the token, the
	// secret or the body); nil: none.
	Log io.Writer
	// Now, for tests; nil: time.Now.
	Now func() time.Time
	// Links are the trigger links served at /hook/; nil: the store's
	// (NewStoreLinks).
	Links Links
}

// Receiver is the http.Handler of every link.
type Receiver struct {
	store *watch.Store
	mux   *http.ServeMux
	log   io.Writer
	now   func() time.Time
	home  string
	links Links
	local *StoreLinks // links when they are the store's, else nil
	keys  *keyring    // the identity key, for a challenge

	logMu sync.Mutex
}

// New builds the receiver over the store's links.
func New(store *watch.Store, opts Options) *Receiver {
	r := &Receiver{store: store, mux: http.NewServeMux(), log: opts.Log, now: opts.Now,
		home: HomeID(store.Registry().Home()), links: opts.Links, keys: &keyring{dir: dirOf(store)}}
	if r.now == nil {
		r.now = time.Now
	}
	if r.links == nil {
		r.local = NewStoreLinks(store)
		r.links = r.local
	}
	r.mux.HandleFunc(HookPrefix, r.hook)
	r.mux.HandleFunc(IdentityPath, r.identity)
	for prefix, h := range opts.Mounts {
		r.Mount(prefix, h)
	}
	return r
}

// Mount serves h under prefix (e.g. "/approve/"); call it before serving.
func (r *Receiver) Mount(prefix string, h http.Handler) {
	r.mux.Handle(prefix, h)
}

func (r *Receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) { r.mux.ServeHTTP(w, req) }

// HomeID names a home without saying its path.
func HomeID(home string) string {
	sum := sha256.Sum256([]byte(home))
	return hex.EncodeToString(sum[:8])
}

type identity struct {
	Receiver string `json:"receiver"` // "hangdog"
	Home     string `json:"home"`     // HomeID: a label, proven only by Proof
	PID      int    `json:"pid"`
	// Proof answers the request's challenge (see identity.go).
	Proof string `json:"proof,omitempty"`
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// refusal is every answer but 202: a short, fixed reason.
func refusal(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, map[string]any{"accepted": false, "error": msg})
}

// notFound is the one answer for a link that is unknown, expired, revoked
// or used up: they must look the same, so the answer says nothing of
// which links exist.
func notFound(w http.ResponseWriter) {
	refusal(w, http.StatusNotFound, "no such link (unknown, expired, revoked or used up)")
}

func (r *Receiver) logf(format string, args ...any) {
	if r.log == nil {
		return
	}
	r.logMu.Lock()
	defer r.logMu.Unlock()
	fmt.Fprintf(r.log, r.now().UTC().Format(time.RFC3339)+" "+format+"\n", args...)
}

// hook takes one delivery. The order matters: the method (link previews
// and mail scanners GET links), the link, the size, the signature, and
// only then the link's rate, so a stranger's unsigned requests never use
// up a sender's rate; they have a cap of their own.
func (r *Receiver) hook(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		refusal(w, http.StatusMethodNotAllowed, "this is a hangdog trigger link: it takes POST only; opening it does nothing")
		return
	}
	token := strings.TrimPrefix(req.URL.Path, HookPrefix)
	now := r.now()
	lk, err := r.links.Open(token, now)
	if errors.Is(err, ErrUnavailable) {
		r.logf("503 %v", err)
		unavailable(w)
		return
	}
	if err != nil {
		r.logf("404 an unknown or closed link")
		notFound(w)
		return
	}
	id := lk.ID
	if req.ContentLength > MaxPayload {
		r.logf("%s 413 %d bytes", id, req.ContentLength)
		refusal(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the payload is over the limit of %d bytes (1 MiB)", MaxPayload))
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, MaxPayload))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			r.logf("%s 413 over %d bytes", id, MaxPayload)
			refusal(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the payload is over the limit of %d bytes (1 MiB)", MaxPayload))
			return
		}
		refusal(w, http.StatusBadRequest, "the request body could not be read")
		return
	}
	if lk.Signature != "" {
		secret, err := r.links.Secret(lk)
		if err != nil {
			r.logf("%s 500 %v", id, err)
			refusal(w, http.StatusInternalServerError, "the link's secret could not be read")
			return
		}
		if verr := webhooksig.Verify(lk.Signature, secret, req.Header, body, now); verr != nil {
			wait, ok, err := r.links.Take(lk, "unverified", lk.RatePerMin*watch.UnverifiedFactor, now)
			if err != nil {
				r.logf("%s 503 %v", id, err)
				unavailable(w)
				return
			}
			if !ok {
				r.logf("%s 429 unverified requests over %d a minute", id, lk.RatePerMin*watch.UnverifiedFactor)
				tooMany(w, wait, "too many requests with a missing or wrong signature")
				return
			}
			r.logf("%s 401 %v", id, verr)
			refusal(w, http.StatusUnauthorized, verr.Error())
			return
		}
	}
	if req.Header.Get("X-GitHub-Event") == "ping" {
		r.logf("%s 202 GitHub ping (nothing stored)", id)
		writeJSON(w, http.StatusAccepted, map[string]any{"accepted": true, "ping": true})
		return
	}
	wait, ok, err := r.links.Take(lk, "rate", lk.RatePerMin, now)
	if err != nil {
		r.logf("%s 503 %v", id, err)
		unavailable(w)
		return
	}
	if !ok {
		r.logf("%s 429 over %d a minute", id, lk.RatePerMin)
		tooMany(w, wait, fmt.Sprintf("over this link's rate of %d deliveries a minute", lk.RatePerMin))
		return
	}
	d := watch.Delivery{ID: deliveryID(lk.Signature, req.Header, body), Event: clip(req.Header.Get("X-GitHub-Event")), ContentType: clip(req.Header.Get("Content-Type")), Body: body}
	dup, err := r.links.Accept(lk, d, now)
	switch {
	case errors.Is(err, watch.ErrLinkClosed):
		r.logf("%s 404 closed meanwhile", id)
		notFound(w)
	case errors.Is(err, ErrUnavailable):
		r.logf("%s 503 %v", id, err)
		unavailable(w)
	case err != nil:
		r.logf("%s 500 %v", id, err)
		refusal(w, http.StatusInternalServerError, "the delivery could not be stored; try again")
	case dup:
		r.logf("%s 202 a repeat (nothing stored)", id)
		writeJSON(w, http.StatusAccepted, map[string]any{"accepted": true, "duplicate": true})
	default:
		r.logf("%s 202 stored (%d bytes)", id, len(body))
		writeJSON(w, http.StatusAccepted, map[string]any{"accepted": true})
	}
}

// unavailable answers a request the receiver could not check or keep
// because the fleet's servers did not answer: nothing was accepted.
func unavailable(w http.ResponseWriter) {
	w.Header().Set("Retry-After", "5")
	refusal(w, http.StatusServiceUnavailable, "the receiver cannot reach its store right now; nothing was accepted; retry after 5 s")
}

func tooMany(w http.ResponseWriter, wait time.Duration, msg string) {
	secs := int(wait/time.Second) + 1
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	refusal(w, http.StatusTooManyRequests, fmt.Sprintf("%s; retry after %d s", msg, secs))
}

// deliveryID is what makes a delivery the same as another. Under a
// signature only what is signed may name it, so a captured delivery
// replayed with fresh unsigned headers is still the one delivery:
//   - standard_webhooks signs its webhook-id (with the timestamp and the
//     body), so that is the id; a replay outside webhooksig.Tolerance is
//     refused before this;
//   - github and hmac_sha256 sign the body only (X-GitHub-Delivery is not
//     signed), so the signed body is the id, remembered as long as a
//     sender's id (see watch.Delivery);
//   - unsigned, nothing is proven, and the sender's own id
//     (Idempotency-Key, webhook-id, X-GitHub-Delivery) names it, else the
//     body.
func deliveryID(scheme string, h http.Header, body []byte) string {
	switch scheme {
	case webhooksig.StandardWebhooks:
		return "id:" + clipID(h.Get(webhooksig.HeaderID))
	case "":
		for _, name := range []string{"Idempotency-Key", webhooksig.HeaderID, "X-GitHub-Delivery"} {
			if v := strings.TrimSpace(h.Get(name)); v != "" {
				return "id:" + clipID(v)
			}
		}
		sum := sha256.Sum256(body)
		return "body:" + hex.EncodeToString(sum[:])
	default:
		sum := sha256.Sum256(body)
		return "signed:" + hex.EncodeToString(sum[:])
	}
}

// clipID keeps a long id short: its hash.
func clipID(v string) string {
	if len(v) > 200 {
		sum := sha256.Sum256([]byte(v))
		return "sha256:" + hex.EncodeToString(sum[:])
	}
	return v
}

func clip(s string) string {
	if len(s) > 100 {
		return s[:100]
	}
	return s
}
