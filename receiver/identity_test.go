package receiver

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hangdog/hangdog/watch"
)

// proveHome asks addr to prove it is home's receiver, with home's key.
func proveHome(home, addr string) (identity, error) {
	key, err := identityKey(filepath.Join(home, serveDir))
	if err != nil {
		return identity{}, err
	}
	return prove(context.Background(), addr, key, HomeID(home))
}

// A receiver proves itself with its home's key, at the address it was
// reached at; the key is private; another home's key does not verify.
func TestReceiverProvesItsIdentity(t *testing.T) {
	l := newLab(t)
	addr := strings.TrimPrefix(l.srv.URL, "http://")
	id, err := proveHome(l.home, addr)
	if err != nil || id.Home != HomeID(l.home) || id.PID != os.Getpid() || id.Proof == "" {
		t.Fatalf("prove = %+v, %v", id, err)
	}
	if fi, err := os.Stat(filepath.Join(l.home, serveDir, identityKeyFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the key file: %v %v", fi, err)
	}
	other := t.TempDir()
	var unproven *unprovenError
	if _, err := proveHome(other, addr); !errors.As(err, &unproven) || !strings.Contains(err.Error(), "of another home") {
		t.Errorf("proved with another home's key: %v", err)
	}
	// Nothing listening is told apart from something that cannot prove.
	if _, err := proveHome(l.home, "127.0.0.1:"+freePort(t)); !errors.Is(err, errNotListening) {
		t.Errorf("prove of a free port = %v, want errNotListening", err)
	}
}

// squat serves, at a port of its own, a listener that claims home's
// identity; relay: it passes the challenge on to the real receiver at
// real and returns its answer. It counts the other requests it gets.
func squat(t *testing.T, home, real string) (addr string, hits *atomic.Int32) {
	t.Helper()
	hits = new(atomic.Int32)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != IdentityPath {
			hits.Add(1)
			w.WriteHeader(http.StatusAccepted)
			return
		}
		if real == "" {
			writeJSON(w, http.StatusOK, identity{Receiver: "hangdog", Home: HomeID(home), PID: os.Getpid(), Proof: "forged"})
			return
		}
		resp, err := http.Get("http://" + real + r.URL.RequestURI())
		if err != nil {
			t.Error(err)
			return
		}
		defer resp.Body.Close()
		_, _ = io.Copy(w, resp.Body)
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://"), hits
}

// Issue 26, item 2: a listener on serve.address that claims this home's
// identity but cannot prove it — forging, or relaying the challenge to
// this home's receiver listening elsewhere — gets no link: Ensure fails,
// naming the port and serve.address, and starts nothing.
func TestEnsureRefusesAListenerThatCannotProveItself(t *testing.T) {
	real := newLab(t)
	for _, relay := range []bool{false, true} {
		name := map[bool]string{false: "forging", true: "relaying"}[relay]
		t.Run(name, func(t *testing.T) {
			home, store := processHome(t, "127.0.0.1:0")
			if _, err := store.Create(context.Background(), &watch.Request{Kind: watch.KindWebhook}, owner, ""); err != nil {
				t.Fatal(err)
			}
			via := ""
			if relay {
				// The real receiver of this very home, elsewhere: copy the
				// lab's key into this home, as the same home would have.
				key, err := identityKey(filepath.Join(real.home, serveDir))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.MkdirAll(filepath.Join(home, serveDir), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(home, serveDir, identityKeyFile), key, 0o600); err != nil {
					t.Fatal(err)
				}
				via = strings.TrimPrefix(real.srv.URL, "http://")
			}
			addr, hits := squat(t, home, via)
			t.Setenv("HANGDOG_SERVE_ADDRESS", addr)
			_, err := Ensure(context.Background(), store)
			if err == nil || !strings.Contains(err.Error(), "serve.address "+addr) || !strings.Contains(err.Error(), "cannot prove") ||
				!strings.Contains(err.Error(), "hangdog config set serve.address") {
				t.Fatalf("Ensure against a %s squatter = %v", name, err)
			}
			t.Logf("refused: %v", err)
			if _, err := os.Stat(filepath.Join(home, serveDir, logFile)); err == nil {
				t.Error("Ensure started a receiver anyway")
			}
			if n := hits.Load(); n != 0 {
				t.Errorf("the squatter got %d requests", n)
			}
		})
	}
}
