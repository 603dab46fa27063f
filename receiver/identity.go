package receiver

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/netip"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hangdog/hangdog/internal/safefile"
	"github.com/hangdog/hangdog/watch"
)

// A receiver proves it is its home's by answering a challenge with a key
// only the home's user can read: <home>/serve/identity.key (0600, in the
// 0700 serve directory), made by whichever of Ensure and Serve comes
// first. The answer is HMAC-SHA256(key, challenge and the address the
// challenge reached it at), so another user's program on serve.address
// cannot answer it, nor relay the challenge to this home's receiver
// listening elsewhere (its answer names its own address). Processes of
// the home's own user can read the key: this tells hangdog's receiver from
// another user's listener, not from the user's own programs.
const identityKeyFile = "identity.key"

func identityKey(dir string) ([]byte, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("receiver directory: %w", err)
	}
	key, err := safefile.Key(filepath.Join(dir, identityKeyFile), 32)
	if err != nil {
		return nil, fmt.Errorf("receiver identity %w", err)
	}
	return key, nil
}

// keyring loads the identity key once.
type keyring struct {
	dir string
	mu  sync.Mutex
	key []byte
}

func (k *keyring) get() ([]byte, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.key == nil {
		key, err := identityKey(k.dir)
		if err != nil {
			return nil, err
		}
		k.key = key
	}
	return k.key, nil
}

// maxChallenge bounds a challenge's length (Ensure sends 64 hex digits).
const maxChallenge = 128

// proofOf is the answer to challenge reaching a receiver at addr.
func proofOf(key []byte, challenge string, addr netip.AddrPort) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("hangdog receiver|" + challenge + "|" + unmapped(addr).String()))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func unmapped(a netip.AddrPort) netip.AddrPort {
	return netip.AddrPortFrom(a.Addr().Unmap(), a.Port())
}

func (r *Receiver) identity(w http.ResponseWriter, req *http.Request) {
	id := identity{Receiver: "hangdog", Home: r.home, PID: pid}
	if c := req.URL.Query().Get("challenge"); c != "" {
		// Hex only: the proof's message is then unambiguous (no "|").
		if _, err := hex.DecodeString(c); err != nil || len(c) > maxChallenge {
			refusal(w, http.StatusBadRequest, "the challenge must be at most 128 hex digits")
			return
		}
		local, _ := req.Context().Value(http.LocalAddrContextKey).(net.Addr)
		var at netip.AddrPort
		if local != nil {
			at, _ = netip.ParseAddrPort(local.String())
		}
		key, err := r.keys.get()
		if err != nil || !at.IsValid() {
			r.logf("identity: cannot answer a challenge: %v", err)
			refusal(w, http.StatusInternalServerError, "the receiver cannot prove its identity now")
			return
		}
		id.Proof = proofOf(key, c, at)
	}
	writeJSON(w, http.StatusOK, id)
}

// errNotListening: nothing accepted a connection at the address (so a
// receiver may be started there).
var errNotListening = errors.New("nothing listens there")

// unprovenError is a listener that accepted the connection but did not
// prove it is this home's receiver.
type unprovenError struct{ why string }

func (e *unprovenError) Error() string { return e.why }

var probeClient = &http.Client{
	Timeout: 2 * time.Second,
	// Never a proxy, never a kept connection: the answer must come from
	// whoever listens at the address now.
	Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true},
	CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	},
}

// ErrNotRunning: no receiver of this home is running.
var ErrNotRunning = errors.New("hangdog's receiver is not running")

// Check says whether this home's receiver is running and proves itself at
// the address it wrote: nil, ErrNotRunning, or what listens there instead.
func Check(ctx context.Context, store *watch.Store) error {
	dir := dirOf(store)
	a, err := readAddress(dir)
	if err != nil {
		return ErrNotRunning
	}
	key, err := identityKey(dir)
	if err != nil {
		return err
	}
	id, err := prove(ctx, a.Address, key, HomeID(store.Registry().Home()))
	switch {
	case errors.Is(err, errNotListening):
		return ErrNotRunning
	case err != nil:
		return fmt.Errorf("the receiver's address %s is held by a listener that is not this home's receiver: %w", a.Address, err)
	case id.PID != a.PID:
		return fmt.Errorf("%w (its address file names pid %d; pid %d answers)", ErrNotRunning, a.PID, id.PID)
	}
	return nil
}

// prove asks whoever listens at addr (host:port; an unspecified host is
// asked on loopback) to prove it is this home's receiver. The error is
// errNotListening when nothing accepted the connection, an
// *unprovenError when something did but did not prove it.
func prove(ctx context.Context, addr string, key []byte, home string) (identity, error) {
	var id identity
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return id, err
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
		if ip.To4() == nil {
			host = "::1"
		}
	}
	var raw [32]byte
	_, _ = rand.Read(raw[:])
	challenge := hex.EncodeToString(raw[:])
	var remote atomic.Pointer[netip.AddrPort]
	trace := &httptrace.ClientTrace{GotConn: func(c httptrace.GotConnInfo) {
		if ap, err := netip.ParseAddrPort(c.Conn.RemoteAddr().String()); err == nil {
			remote.Store(&ap)
		}
	}}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), http.MethodGet,
		"http://"+net.JoinHostPort(host, port)+IdentityPath+"?challenge="+challenge, nil)
	if err != nil {
		return id, err
	}
	resp, err := probeClient.Do(req)
	at := remote.Load()
	if err != nil {
		if at == nil {
			return id, fmt.Errorf("%w: %v", errNotListening, err)
		}
		return id, &unprovenError{"it accepted the connection but did not answer: " + err.Error()}
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(http.MaxBytesReader(nil, resp.Body, 4096)).Decode(&id); err != nil || id.Receiver != "hangdog" {
		return id, &unprovenError{"it does not answer as hangdog's receiver"}
	}
	if at == nil || !hmac.Equal([]byte(id.Proof), []byte(proofOf(key, challenge, *at))) {
		if id.Home == home {
			return id, &unprovenError{fmt.Sprintf("it claims to be this home's receiver (pid %d) but does not hold the home's key: another user's program, or an older hangdog of yours (then stop it: kill %d)", id.PID, id.PID)}
		}
		return id, &unprovenError{fmt.Sprintf("it answers as hangdog's receiver (pid %d) of another home, or another user's", id.PID)}
	}
	return id, nil
}
