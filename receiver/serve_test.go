package receiver

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hangdog/hangdog/watch"
)

// Two processes ensuring the receiver at once start one server; both get
// its URL; it answers as this home's.
func TestEnsureStartsOneServerForTwoCallers(t *testing.T) {
	home, store := processHome(t, "127.0.0.1:0")
	if _, err := store.Create(context.Background(), &watch.Request{Kind: watch.KindWebhook}, owner, ""); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	urls := make([]string, 2)
	errs := make([]error, 2)
	for i := range urls {
		wg.Go(func() {
			out, err := helperCmd("ensure", "").Output()
			urls[i], errs[i] = strings.TrimSpace(string(out)), err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("ensure %d: %v", i, err)
		}
	}
	if urls[0] != urls[1] || !strings.HasPrefix(urls[0], "http://127.0.0.1:") {
		t.Fatalf("the two callers got %q and %q", urls[0], urls[1])
	}
	log, _ := os.ReadFile(filepath.Join(home, serveDir, logFile))
	if n := countLines(string(log), "listening on"); n != 1 {
		t.Fatalf("%d servers started, want 1:\n%s", n, log)
	}
	// A third, in this process, finds it too.
	url, err := Ensure(context.Background(), store)
	if err != nil || url != urls[0] {
		t.Errorf("Ensure again = %q, %v; want %q", url, err, urls[0])
	}
	id, err := proveHome(home, strings.TrimPrefix(url, "http://"))
	if err != nil || id.Home != HomeID(home) {
		t.Errorf("identity %+v, %v", id, err)
	}
	// The address file is private.
	if fi, err := os.Stat(filepath.Join(home, serveDir, addressFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("address file: %v %v", fi, err)
	}
}

// The server leaves by itself once no link is active (here: the link is
// deleted), and removes its address file.
func TestServerExitsWhenNoLinkRemains(t *testing.T) {
	home, store := processHome(t, "127.0.0.1:0")
	c, err := store.Create(context.Background(), &watch.Request{Kind: watch.KindWebhook}, owner, "")
	if err != nil {
		t.Fatal(err)
	}
	c2, err := store.Create(context.Background(), &watch.Request{Kind: watch.KindWebhook}, owner, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Ensure(context.Background(), store); err != nil {
		t.Fatal(err)
	}
	a, err := readAddress(filepath.Join(home, serveDir))
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Pause(c.Spec.ID, owner, ""); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second) // past the grace: one link is still active
	if !alive(a.PID) {
		t.Fatal("the server left while a link was active")
	}
	if _, err := store.Delete(c2.Spec.ID, owner); err != nil {
		t.Fatal(err)
	}
	// Told by inotify it leaves within a second; the 30 s tick is the
	// fallback a loaded machine may need.
	waitUntil(t, "the server to leave", 45*time.Second, func() bool { return !alive(a.PID) })
	if _, err := os.Stat(filepath.Join(home, serveDir, addressFile)); !os.IsNotExist(err) {
		t.Errorf("address file after the exit: %v", err)
	}
	log, _ := os.ReadFile(filepath.Join(home, serveDir, logFile))
	if !strings.Contains(string(log), "stopping: no link is active") {
		t.Errorf("log: %s", log)
	}
}

// An address file whose address answers as something else (or nothing) is
// not trusted: Ensure starts a receiver of its own.
func TestStaleAddressFileIsNotTrusted(t *testing.T) {
	home, store := processHome(t, "127.0.0.1:0")
	if _, err := store.Create(context.Background(), &watch.Request{Kind: watch.KindWebhook}, owner, ""); err != nil {
		t.Fatal(err)
	}
	other := newLab(t) // another home's receiver, answering
	dir := filepath.Join(home, serveDir)
	os.MkdirAll(dir, 0o700)
	stale := `{"address":"` + strings.TrimPrefix(other.srv.URL, "http://") + `","url":"` + other.srv.URL + `","pid":1}`
	if err := os.WriteFile(filepath.Join(dir, addressFile), []byte(stale), 0o600); err != nil {
		t.Fatal(err)
	}
	url, err := Ensure(context.Background(), store)
	if err != nil {
		t.Fatal(err)
	}
	if url == other.srv.URL {
		t.Fatal("Ensure trusted another home's receiver")
	}
	id, err := proveHome(home, strings.TrimPrefix(url, "http://"))
	if err != nil || id.Home != HomeID(home) {
		t.Errorf("the new receiver: %+v %v", id, err)
	}
}

// One receiver per home: a second Serve says which one runs.
func TestSecondServeForAHomeIsRefused(t *testing.T) {
	home, store := processHome(t, "127.0.0.1:0")
	cmd := helperCmd("serve", "stay")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	waitUntil(t, "the first server", 15*time.Second, func() bool {
		_, err := readAddress(filepath.Join(home, serveDir))
		return err == nil
	})
	err := Serve(context.Background(), store, ServeOptions{Address: "127.0.0.1:0"})
	if err == nil || !strings.Contains(err.Error(), "already serves this home") {
		t.Errorf("second Serve: %v", err)
	}
	// --stay: no link, and it stays past the grace.
	time.Sleep(2 * time.Second)
	if cmd.ProcessState != nil || !alive(cmd.Process.Pid) {
		t.Error("a --stay server left without links")
	}
}

// A port taken by another program is named in the error.
func TestServeOnABusyPort(t *testing.T) {
	other := newLab(t)
	_, store := processHome(t, "127.0.0.1:0")
	err := Serve(context.Background(), store, ServeOptions{Address: strings.TrimPrefix(other.srv.URL, "http://")})
	if err == nil || !strings.Contains(err.Error(), "is in use by a listener that is not this home's receiver (it answers as hangdog's receiver (pid") || !strings.Contains(err.Error(), "serve.address") {
		t.Errorf("Serve on a taken port: %v", err)
	}
	if _, err := http.Get(other.srv.URL + IdentityPath); err != nil {
		t.Errorf("the other server: %v", err)
	}
}
