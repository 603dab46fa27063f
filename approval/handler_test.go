package approval

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/internal/peerproc"
	"github.com/hangdog/hangdog/watch"
)

type fixture struct {
	store *watch.Store
	h     *handler
	srv   *httptest.Server

	mu    sync.Mutex
	codes []string // "POST 409", each answer the server gave
}

// answers is what the server answered so far, in order.
func (f *fixture) answers() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.codes)
}

type codeRecorder struct {
	http.ResponseWriter
	code int
}

func (c *codeRecorder) WriteHeader(code int) { c.code = code; c.ResponseWriter.WriteHeader(code) }

func newFixture(t testing.TB) *fixture {
	t.Helper()
	reg, err := bgtasks.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	store, err := watch.OpenStore(reg)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{store: store, h: Handler(store).(*handler)}
	mux := http.NewServeMux()
	mux.Handle("/approve/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &codeRecorder{ResponseWriter: w, code: 200}
		f.h.ServeHTTP(rec, r)
		f.mu.Lock()
		f.codes = append(f.codes, r.Method+" "+strconv.Itoa(rec.code))
		f.mu.Unlock()
	}))
	f.srv = httptest.NewServer(mux) // 127.0.0.1
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fixture) approval(t testing.TB, q *watch.ApprovalRequest) (*watch.Watcher, string) {
	t.Helper()
	w, token, err := f.store.CreateApproval(q, "sess", "")
	if err != nil {
		t.Fatal(err)
	}
	return w, token
}

func (f *fixture) url(token string) string { return watch.ApprovalURL(f.srv.URL, token) }

func do(t *testing.T, method, u string, form url.Values, hdr ...string) (int, http.Header, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

var nonceField = regexp.MustCompile(`name="nonce" value="([^"]+)"`)

func nonceOf(t *testing.T, page string) string {
	t.Helper()
	m := nonceField.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no nonce in the page:\n%s", page)
	}
	return m[1]
}

// snapshot is every file under dir with its content hash, size and
// mtime, to tell that nothing was written.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		sum := ""
		if !d.IsDir() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h := sha256.Sum256(b)
			sum = hex.EncodeToString(h[:])
		}
		out[p] = fi.ModTime().String() + " " + fi.Mode().String() + " " + sum
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameSnapshot(t *testing.T, before, after map[string]string) {
	t.Helper()
	for p, v := range after {
		if before[p] != v {
			t.Errorf("%s changed or appeared: %q → %q", p, before[p], v)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			t.Errorf("%s disappeared", p)
		}
	}
}

func TestPageShowsTheQuestionEscapedAndWritesNothing(t *testing.T) {
	f := newFixture(t)
	w, token := f.approval(t, &watch.ApprovalRequest{Question: "Deploy <b>build</b> 142?",
		Details: "<script>alert(1)</script>\nline two", Options: []string{"Ship", "Wait", "Never"}, ExpiresAt: "3h"})
	home := f.store.Registry().Home()
	before := snapshot(t, home)
	code, hdr, page := do(t, "GET", f.url(token), nil)
	if code != 200 {
		t.Fatalf("GET = %d:\n%s", code, page)
	}
	for k, v := range map[string]string{"X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer", "Cache-Control": "no-store"} {
		if hdr.Get(k) != v {
			t.Errorf("%s = %q, want %q", k, hdr.Get(k), v)
		}
	}
	if c := hdr.Get("Content-Security-Policy"); !strings.Contains(c, "default-src 'none'") || !strings.Contains(c, "form-action 'self'") || !strings.Contains(c, "frame-ancestors 'none'") {
		t.Errorf("CSP %q", c)
	}
	for _, want := range []string{`<html lang="en">`, "<main>", "<h1>Deploy &lt;b&gt;build&lt;/b&gt; 142?</h1>",
		"&lt;script&gt;alert(1)&lt;/script&gt;\nline two", `<label for="comment">`, `<textarea id="comment" name="comment"`,
		`<button type="submit" name="decision" value="Ship" class="first">Ship</button>`,
		`<button type="submit" name="decision" value="Never">Never</button>`, "expires <time datetime=", "(in 2h59m)", "<legend>Your decision</legend>"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "<script") || strings.Contains(page, "<b>") {
		t.Error("the agent's text reached the page unescaped")
	}
	if code, _, _ := do(t, "HEAD", f.url(token), nil); code != 200 {
		t.Errorf("HEAD = %d", code)
	}
	sameSnapshot(t, before, snapshot(t, home))
	if v, _ := f.store.ApprovalByToken(token, time.Now()); v.Decision != nil {
		t.Fatal("opening the page decided")
	}
	if st := w.State; st.Checks != 0 || st.Paused {
		t.Fatalf("state %+v", st)
	}
}

func TestPostDecidesOnceThenConflict(t *testing.T) {
	f := newFixture(t)
	_, token := f.approval(t, &watch.ApprovalRequest{Question: "Ship it?"})
	_, _, page := do(t, "GET", f.url(token), nil)
	nonce := nonceOf(t, page)
	code, _, body := do(t, "POST", f.url(token), url.Values{"nonce": {nonce}, "decision": {"Approve"}, "comment": {"<i>fine</i> by me"}})
	if code != 200 || !strings.Contains(body, "Decision recorded") || !strings.Contains(body, `<p class="decision">Approve</p>`) || !strings.Contains(body, "&lt;i&gt;fine&lt;/i&gt; by me") {
		t.Fatalf("first POST = %d:\n%s", code, body)
	}
	v, err := f.store.ApprovalByToken(token, time.Now())
	if err != nil || v.Decision == nil || v.Decision.Choice != "Approve" || v.Decision.Comment != "<i>fine</i> by me" {
		t.Fatalf("stored: %+v %v", v, err)
	}
	code, _, body = do(t, "POST", f.url(token), url.Values{"nonce": {nonce}, "decision": {"Reject"}})
	if code != 409 || !strings.Contains(body, "Already decided") || !strings.Contains(body, `<p class="decision">Approve</p>`) || strings.Contains(body, "<form") {
		t.Fatalf("second POST = %d:\n%s", code, body)
	}
	// Without a nonce too: the answer is the decision, not a new form.
	if code, _, _ := do(t, "POST", f.url(token), url.Values{"decision": {"Reject"}}); code != 409 {
		t.Fatalf("second POST without a nonce = %d", code)
	}
	code, _, body = do(t, "GET", f.url(token), nil)
	if code != 200 || !strings.Contains(body, `<p class="decision">Approve</p>`) || strings.Contains(body, "<form") {
		t.Fatalf("GET after the decision = %d:\n%s", code, body)
	}
	if v, _ := f.store.ApprovalByToken(token, time.Now()); v.Decision.Choice != "Approve" {
		t.Fatal("the second decision replaced the first")
	}
}

func TestUnknownExpiredPausedDeletedAre404(t *testing.T) {
	f := newFixture(t)
	bogus, _ := watch.NewLinkToken()
	_, _, want := do(t, "GET", f.url(bogus), nil)
	check := func(what, method, token string) {
		t.Helper()
		var form url.Values
		if method == "POST" {
			form = url.Values{"decision": {"Approve"}}
		}
		code, _, body := do(t, method, f.url(token), form)
		if code != 404 || body != want {
			t.Errorf("%s %s = %d (same body as unknown: %v)", method, what, code, body == want)
		}
	}
	for _, m := range []string{"GET", "POST"} {
		check("unknown", m, bogus)
		check("malformed", m, "abc")
		check("empty", m, "")
	}
	_, expiring := f.approval(t, &watch.ApprovalRequest{Question: "a?", ExpiresAt: "1h"})
	_, _, page := do(t, "GET", f.url(expiring), nil)
	nonce := nonceOf(t, page)
	f.h.now = func() time.Time { return time.Now().Add(61 * time.Minute) }
	check("expired", "GET", expiring)
	if code, _, _ := do(t, "POST", f.url(expiring), url.Values{"nonce": {nonce}, "decision": {"Approve"}}); code != 404 {
		t.Errorf("POST expired = %d", code)
	}
	f.h.now = time.Now
	w2, paused := f.approval(t, &watch.ApprovalRequest{Question: "b?"})
	if err := f.store.Pause(w2.Spec.ID, "sess", ""); err != nil {
		t.Fatal(err)
	}
	check("paused", "GET", paused)
	w3, deleted := f.approval(t, &watch.ApprovalRequest{Question: "c?"})
	if _, err := f.store.Delete(w3.Spec.ID, "sess"); err != nil {
		t.Fatal(err)
	}
	check("deleted", "GET", deleted)
	check("deleted", "POST", deleted)
	if code, hdr, _ := do(t, "PUT", f.url(paused), nil); code != 405 || hdr.Get("Allow") == "" {
		t.Errorf("PUT = %d, Allow %q", code, hdr.Get("Allow"))
	}
}

func TestNonceMissingWrongOrOldIsRefused(t *testing.T) {
	f := newFixture(t)
	_, token := f.approval(t, &watch.ApprovalRequest{Question: "Ship it?"})
	_, other := f.approval(t, &watch.ApprovalRequest{Question: "Other?"})
	_, _, otherPage := do(t, "GET", f.url(other), nil)
	_, _, page := do(t, "GET", f.url(token), nil)
	good := nonceOf(t, page)
	at, mac, _ := strings.Cut(good, ".")
	for name, nonce := range map[string]string{
		"missing":          "",
		"another link's":   nonceOf(t, otherPage),
		"tampered":         at + "." + flip(mac[:1]) + mac[1:],
		"re-dated":         "1" + at + "." + mac,
		"without a mac":    at,
		"of the wrong key": at + ".AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
	} {
		form := url.Values{"decision": {"Approve"}, "comment": {"kept"}}
		if nonce != "" {
			form.Set("nonce", nonce)
		}
		code, _, body := do(t, "POST", f.url(token), form)
		if code != 403 || !strings.Contains(body, "Nothing was recorded") || !strings.Contains(body, ">kept</textarea>") {
			t.Errorf("%s nonce: %d\n%s", name, code, body)
		}
	}
	// A page left open past the nonce's life.
	f.h.now = func() time.Time { return time.Now().Add(nonceTTL + time.Minute) }
	if code, _, body := do(t, "POST", f.url(token), url.Values{"nonce": {good}, "decision": {"Approve"}}); code != 403 || !strings.Contains(body, "open too long") {
		t.Errorf("an old nonce: %d", code)
	}
	f.h.now = time.Now
	// A cross-site post, even with a good nonce.
	if code, _, _ := do(t, "POST", f.url(token), url.Values{"nonce": {good}, "decision": {"Approve"}}, "Sec-Fetch-Site", "cross-site"); code != 403 {
		t.Errorf("a cross-site post: %d", code)
	}
	// A decision that is no option.
	if code, _, body := do(t, "POST", f.url(token), url.Values{"nonce": {good}, "decision": {"Maybe"}}); code != 400 || !strings.Contains(body, "Approve, Reject") {
		t.Errorf("a choice that is no option: %d\n%s", code, body)
	}
	if v, _ := f.store.ApprovalByToken(token, time.Now()); v.Decision != nil {
		t.Fatalf("a refused post decided: %+v", v.Decision)
	}
	if code, _, _ := do(t, "POST", f.url(token), url.Values{"nonce": {good}, "decision": {"Reject"}}); code != 200 {
		t.Fatalf("the good nonce after all that: %d", code)
	}
}

// curl run under a program named as hangdog's supervisor, inside a task
// (its environment says so), or by the agent that asked, is refused; the
// same curl on its own is a person. The real supervisor is the CLI's test
// (cmd/hangdog TestApproveFlow).
func TestRequestsFromHangdogProcessesAre403(t *testing.T) {
	if !peerproc.Supported {
		t.Skip("the peer check needs Linux")
	}
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("no curl")
	}
	f := newFixture(t)
	_, token := f.approval(t, &watch.ApprovalRequest{Question: "Ship it?"})
	_, _, page := do(t, "GET", f.url(token), nil)
	nonce := nonceOf(t, page)
	fake := filepath.Join(t.TempDir(), "hangdog-supervisor")
	bash, _ := exec.LookPath("bash")
	b, err := os.ReadFile(bash)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(fake, b, 0o700); err != nil {
		t.Fatal(err)
	}
	post := curl + " -s -o /dev/null -w '%{http_code}' -X POST --data-urlencode nonce=" + nonce + " --data decision=Approve " + f.url(token)
	get := curl + " -s -w '\\n%{http_code}' " + f.url(token)
	run := func(name string, cmd *exec.Cmd) string {
		t.Helper()
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return string(out)
	}
	// The last command of bash -c is exec'd: "; true" keeps bash as curl's
	// parent.
	if out := run("under a supervisor", exec.Command(fake, "-c", post+"; true")); out != "403" {
		t.Errorf("POST from under hangdog-supervisor = %s, want 403", out)
	}
	if out := run("GET under a supervisor", exec.Command(fake, "-c", get+"; true")); !strings.HasSuffix(out, "403") || !strings.Contains(out, "runs under hangdog-supervisor (pid") {
		t.Errorf("GET from under hangdog-supervisor = %s", out)
	}
	// The watchers' runner starts command watchers' commands.
	runner := filepath.Join(filepath.Dir(fake), "hangdog-watch")
	if err := os.WriteFile(runner, b, 0o700); err != nil {
		t.Fatal(err)
	}
	if out := run("POST under the watchers' runner", exec.Command(runner, "-c", post+"; true")); out != "403" {
		t.Errorf("POST from under hangdog-watch = %s, want 403", out)
	}
	inTask := exec.Command("bash", "-c", post)
	inTask.Env = append(os.Environ(), "HANGDOG_TASK_ID=t9")
	if out := run("in a task", inTask); out != "403" {
		t.Errorf("POST with HANGDOG_TASK_ID = %s, want 403", out)
	}
	// The agent that asked (its pid and start time are in the approval):
	// a command it runs is refused.
	agent2 := exec.Command("bash", "-c", "read -r cmd; eval \"$cmd\"; true")
	stdin2, _ := agent2.StdinPipe()
	out2 := &strings.Builder{}
	agent2.Stdout = out2
	if err := agent2.Start(); err != nil {
		t.Fatal(err)
	}
	p2, err := peerproc.Stat(agent2.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	_, tok2 := f.approval(t, &watch.ApprovalRequest{Question: "Mine too?", AgentPID: p2.PID, AgentStart: p2.Start})
	_, _, page2 := do(t, "GET", f.url(tok2), nil)
	_, _ = io.WriteString(stdin2, curl+" -s -o /dev/null -w '%{http_code}' -X POST --data-urlencode nonce="+nonceOf(t, page2)+" --data decision=Approve "+f.url(tok2)+"\n")
	_ = stdin2.Close()
	_ = agent2.Wait()
	if out2.String() != "403" {
		t.Errorf("POST by a child of the agent that asked = %q, want 403", out2.String())
	}
	if v, _ := f.store.ApprovalByToken(tok2, time.Now()); v.Decision != nil {
		t.Error("the asking agent decided its own approval")
	}
	// The same curl on its own is a person's, and decides.
	if out := run("a plain process", exec.Command("bash", "-c", post)); out != "200" {
		t.Errorf("POST by a plain process = %q, want 200", out)
	}
	if v, _ := f.store.ApprovalByToken(token, time.Now()); v.Decision == nil || v.Decision.Choice != "Approve" {
		t.Errorf("a plain process's decision was not recorded: %+v", v)
	}
}

// flip is a one-character string other than c.
func flip(c string) string {
	if c == "A" {
		return "B"
	}
	return "A"
}
