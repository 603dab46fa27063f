package approval

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/internal/peerproc"
	"github.com/hangdog/hangdog/watch"
)

// The approval page in a real browser: Debian's headless Chromium driven
// through chromedriver's WebDriver HTTP API (no Go dependency). Skipped
// when either is missing, except under CI=true, where it must run.

// chromiumFlags are what Chromium needs in a container without a display,
// a sandbox or much /dev/shm.
var chromiumFlags = []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
	"--disable-background-networking", "--window-size=900,900", "--lang=en-US"}

func browserTools(t *testing.T) (chromium, driver string) {
	t.Helper()
	var missing []string
	for _, names := range [][]string{{"chromium", "chromium-browser"}, {"chromedriver"}} {
		found := ""
		for _, n := range names {
			if p, err := exec.LookPath(n); err == nil {
				found = p
				break
			}
		}
		if found == "" {
			missing = append(missing, names[0])
		} else if chromium == "" {
			chromium = found
		} else {
			driver = found
		}
	}
	if len(missing) > 0 {
		msg := fmt.Sprintf("the browser test needs %s (Debian: apt-get install -y chromium chromium-driver)", strings.Join(missing, " and "))
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	// Under hangdog (a developer's `go test` in a hangdog task), the page
	// rightly refuses the browser, which is then hangdog's descendant.
	for _, p := range peerproc.Ancestry(os.Getpid()) {
		if hangdogExes[p.ExeBase()] || p.TaskID != "" {
			t.Skipf("this test runs under hangdog (%s, pid %d): the page refuses its browser; run it outside hangdog", p.ExeBase(), p.PID)
		}
	}
	return chromium, driver
}

// wd is one WebDriver session.
type wd struct {
	t    *testing.T
	base string // http://127.0.0.1:PORT/session/ID
}

func (d *wd) call(method, path string, body any) json.RawMessage {
	d.t.Helper()
	return wdCall(d.t, method, d.base+path, body)
}

func wdCall(t *testing.T, method, u string, body any) json.RawMessage {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, u, rd)
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Timeout: 90 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("webdriver %s %s: %v", method, u, err)
	}
	defer resp.Body.Close()
	var out struct {
		Value json.RawMessage `json:"value"`
	}
	b, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(b, &out); err != nil || resp.StatusCode != 200 {
		t.Fatalf("webdriver %s %s: %d %s", method, u, resp.StatusCode, b)
	}
	return out.Value
}

const elementKey = "element-6066-11e4-a52e-4f735466cecf"

func (d *wd) find(css string) string {
	d.t.Helper()
	var el map[string]string
	_ = json.Unmarshal(d.call("POST", "/element", map[string]string{"using": "css selector", "value": css}), &el)
	if el[elementKey] == "" {
		d.t.Fatalf("no element %q", css)
	}
	return el[elementKey]
}

func (d *wd) text(css string) string {
	d.t.Helper()
	var s string
	_ = json.Unmarshal(d.call("GET", "/element/"+d.find(css)+"/text", nil), &s)
	return s
}

// waitText waits until the element's text is want (a click's navigation
// replaces the page; until then its elements go stale) and returns what
// it read last.
func (d *wd) waitText(css, want string) string {
	d.t.Helper()
	last := ""
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		var el map[string]string
		if v, ok := d.try("POST", "/element", map[string]string{"using": "css selector", "value": css}); ok && json.Unmarshal(v, &el) == nil && el[elementKey] != "" {
			if v, ok := d.try("GET", "/element/"+el[elementKey]+"/text", nil); ok && json.Unmarshal(v, &last) == nil && last == want {
				return last
			}
		}
	}
	return last
}

// try is call that reports failure instead of failing the test.
func (d *wd) try(method, path string, body any) (json.RawMessage, bool) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, d.base+path, rd)
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		return nil, false
	}
	defer resp.Body.Close()
	var out struct {
		Value json.RawMessage `json:"value"`
	}
	if resp.StatusCode != 200 || json.NewDecoder(resp.Body).Decode(&out) != nil {
		return nil, false
	}
	return out.Value, true
}

func (d *wd) source() string {
	d.t.Helper()
	var s string
	_ = json.Unmarshal(d.call("GET", "/source", nil), &s)
	return s
}

func (d *wd) open(u string) { d.t.Helper(); d.call("POST", "/url", map[string]string{"url": u}) }

// startDriver runs chromedriver and opens a Chromium session; both end
// with the test.
func startDriver(t *testing.T, chromium, driver string) *wd {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, driver, "--port="+strconv.Itoa(port))
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	root := "http://127.0.0.1:" + strconv.Itoa(port)
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(root + "/status")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("chromedriver did not answer within 60s: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	caps := map[string]any{"capabilities": map[string]any{"alwaysMatch": map[string]any{
		"browserName": "chrome",
		// Its profile in the test's own directory: chromedriver's default is
		// a scoped dir under /tmp that outlives the test.
		"goog:chromeOptions": map[string]any{"binary": chromium, "args": append(slices.Clone(chromiumFlags), "--user-data-dir="+t.TempDir())},
	}}}
	var sess struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(wdCall(t, "POST", root+"/session", caps), &sess)
	if sess.SessionID == "" {
		t.Fatal("no WebDriver session")
	}
	d := &wd{t: t, base: root + "/session/" + sess.SessionID}
	t.Cleanup(func() {
		req, _ := http.NewRequest("DELETE", d.base, nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	})
	return d
}

// A person opens the page in Chromium, reads the question, types a
// comment and presses Approve: the owner's session gets exactly one
// event, another session none; pressing again (in a second window opened
// before the first press) shows the 409 page with the decision; opening
// the link alone changes nothing.
func TestBrowserApproves(t *testing.T) {
	chromium, driver := browserTools(t)
	f := newFixture(t)
	reg := f.store.Registry()
	_, token := f.approval(t, &watch.ApprovalRequest{Question: "Deploy build 142 to production?",
		Details: "Changes since 141:\n  - fix the login redirect\n  - bump the cache TTL to 10 min\nAll 412 tests passed.", ExpiresAt: "4h"})
	// The owner's consumer and a stranger's, registered before anything
	// happens, read the log as an MCP session does.
	for _, c := range []string{"owner-session", "other-session"} {
		if _, err := reg.Undelivered(c); err != nil {
			t.Fatal(err)
		}
	}
	d := startDriver(t, chromium, driver)
	before := snapshot(t, reg.Home())
	d.open(f.url(token))
	if got := d.text("h1"); got != "Deploy build 142 to production?" {
		t.Fatalf("the page's heading is %q", got)
	}
	if got := d.text("pre"); !strings.Contains(got, "bump the cache TTL") {
		t.Fatalf("the details read %q", got)
	}
	// A second window with the same page, for the second press.
	var win struct {
		Handle string `json:"handle"`
	}
	var first string
	_ = json.Unmarshal(d.call("GET", "/window", nil), &first)
	_ = json.Unmarshal(d.call("POST", "/window/new", map[string]string{"type": "tab"}), &win)
	d.call("POST", "/window", map[string]string{"handle": win.Handle})
	d.open(f.url(token))
	d.call("POST", "/window", map[string]string{"handle": first})
	time.Sleep(300 * time.Millisecond) // let any stray write land before comparing
	sameSnapshot(t, before, snapshot(t, reg.Home()))

	// The watcher's runner starts only now: its own checks write the
	// watcher's state, which is not the page's doing, and under load one
	// could land while the pages open.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- (&watch.HomeRunner{Store: f.store}).Run(ctx) }()

	if path := os.Getenv("APPROVAL_SCREENSHOT"); path != "" {
		var b64 string
		_ = json.Unmarshal(d.call("GET", "/screenshot", nil), &b64)
		png, err := base64.StdEncoding.DecodeString(b64)
		if err != nil || len(png) < 1000 {
			t.Fatalf("screenshot: %d bytes, %v", len(png), err)
		}
		if err := os.WriteFile(filepath.Clean(path), png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot written to %s", path)
	}

	// Keyboard: Tab goes to the comment, then the buttons in order.
	for _, want := range []string{"textarea comment", "button Approve", "button Reject"} {
		tab := map[string]any{"actions": []any{map[string]any{"type": "key", "id": "keyboard", "actions": []any{
			map[string]string{"type": "keyDown", "value": "\uE004"}, map[string]string{"type": "keyUp", "value": "\uE004"}}}}}
		d.call("POST", "/actions", tab)
		var el map[string]string
		_ = json.Unmarshal(d.call("GET", "/element/active", nil), &el)
		var tag, name, value string
		_ = json.Unmarshal(d.call("GET", "/element/"+el[elementKey]+"/name", nil), &tag)
		_ = json.Unmarshal(d.call("GET", "/element/"+el[elementKey]+"/attribute/name", nil), &name)
		_ = json.Unmarshal(d.call("GET", "/element/"+el[elementKey]+"/attribute/value", nil), &value)
		got := tag + " " + value
		if tag == "textarea" {
			got = tag + " " + name
		}
		if got != want {
			t.Fatalf("Tab reached %q, want %q", got, want)
		}
	}

	comment := d.find("#comment")
	d.call("POST", "/element/"+comment+"/value", map[string]string{"text": "Looks good — ship it."})
	d.call("POST", "/element/"+d.find(`button[value="Approve"]`)+"/click", map[string]any{})
	if got := d.waitText("h1", "Decision recorded"); got != "Decision recorded" {
		t.Fatalf("after pressing Approve the heading is %q:\n%s", got, d.source())
	}
	if got := d.text(".decision"); got != "Approve" {
		t.Fatalf("the recorded decision reads %q", got)
	}

	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the watcher did not end within 60s of the decision")
	}
	mine := undelivered(t, reg, "owner-session", "sess")
	if len(mine) != 1 {
		t.Fatalf("the owner got %d events, want 1: %+v", len(mine), mine)
	}
	e := mine[0]
	if e.Decision != "Approve" || e.From != watch.FromApprovalLink || !strings.HasSuffix(e.Comment, "Looks good — ship it.") || !strings.HasPrefix(e.Comment, "[untrusted") {
		t.Fatalf("the event: %+v", e)
	}
	if others := undelivered(t, reg, "other-session", "other"); len(others) != 0 {
		t.Fatalf("another session got %+v", others)
	}

	// The second press, in the window opened before the first.
	d.call("POST", "/window", map[string]string{"handle": win.Handle})
	d.call("POST", "/element/"+d.find(`button[value="Reject"]`)+"/click", map[string]any{})
	if got := d.waitText("h1", "Already decided"); got != "Already decided" {
		t.Fatalf("the second press shows %q:\n%s", got, d.source())
	}
	if got := d.text(".decision"); got != "Approve" {
		t.Fatalf("the 409 page shows the decision %q", got)
	}
	// What the browser was answered (WebDriver does not tell status
	// codes; the server's log of them does): two page loads, the decision
	// and the 409, and nothing refused.
	if got := strings.Join(f.answers(), ", "); got != "GET 200, GET 200, POST 200, POST 409" {
		t.Fatalf("the server answered the browser %s", got)
	}
	if evs := undelivered(t, reg, "owner-session", "sess"); len(evs) != 0 {
		t.Fatalf("the second press made events: %+v", evs)
	}
}

// undelivered is what consumer has not been given, in owner's scope,
// marked delivered as a consumer does.
func undelivered(t *testing.T, reg *bgtasks.Registry, consumer, owner string) []bgtasks.Event {
	t.Helper()
	evs, err := reg.Undelivered(consumer)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) > 0 {
		if err := reg.MarkDelivered(consumer, evs[len(evs)-1].Seq); err != nil {
			t.Fatal(err)
		}
	}
	return bgtasks.Scope{Owner: owner}.Events(evs)
}
