//go:build linux

package faults

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// linkWorld is a world whose receiver listens on a port of its own.
type linkWorld struct {
	*world
	addr string // serve.address, 127.0.0.1:PORT
}

func newLinkWorld(t *testing.T) *linkWorld {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	w := &linkWorld{world: newWorld(t), addr: addr}
	w.extra = append(w.extra, "HANGDOG_SESSION=s1", "HANGDOG_SERVE_ADDRESS="+addr)
	t.Cleanup(func() {
		if pid := w.receiverPID(); pid > 0 {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	return w
}

// receiverPID is the pid address.json names, or 0.
func (w *linkWorld) receiverPID() int {
	b, err := os.ReadFile(filepath.Join(w.home, "serve", "address.json"))
	if err != nil {
		return 0
	}
	var a struct {
		PID int `json:"pid"`
	}
	_ = json.Unmarshal(b, &a)
	return a.PID
}

// approval makes an approval link through the CLI and returns its URL.
func (w *linkWorld) approval(question string) string {
	w.t.Helper()
	r := w.run("approve", "create", "--question", question, "--json")
	var c struct {
		URL string `json:"url"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &c) != nil || c.URL == "" {
		w.t.Fatalf("approve create: %+v", r)
	}
	return c.URL
}

// scanInts reads space-separated integers into ptrs; false unless all.
func scanInts(s string, ptrs ...*int) bool {
	f := strings.Fields(s)
	if len(f) != len(ptrs) {
		return false
	}
	for i, p := range ptrs {
		n, err := strconv.Atoi(f[i])
		if err != nil {
			return false
		}
		*p = n
	}
	return true
}

// pageNonce opens an approval page as a person (this test process is no
// task) and returns its form's nonce.
func pageNonce(t *testing.T, u string) string {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	m := regexp.MustCompile(`name="nonce" value="([^"]+)"`).FindSubmatch(b)
	if resp.StatusCode != 200 || m == nil {
		t.Fatalf("GET %s as a person = %d\n%s", u, resp.StatusCode, b)
	}
	return string(m[1])
}

// Issue 26, item 1: a task's command that wipes its environment, starts a
// session of its own and kills its supervisor is re-parented out of
// hangdog's tree with nothing that says "task" left in its environment or
// ancestry. Its POST of the approval (with a good nonce: the key is a file
// the task could read anyway) must still be refused, and nothing decided.
func TestEscapedTaskCannotApprove(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("no curl")
	}
	w := newLinkWorld(t)
	link := w.approval("Deploy?")
	nonce := pageNonce(t, link)
	out := filepath.Join(w.root, "escape")
	// The escapee waits until its supervisor is dead and it has been
	// re-parented away from the task's bash, records its parent, then
	// posts. bash kills the supervisor and exits by itself: the terminal's
	// hang-up would not end it where SIGHUP is ignored from the start
	// (under nohup, which is inherited), and then it never leaves. `exec` makes curl the escapee itself (the socket's holder).
	escapee := filepath.Join(w.root, "escape.sh")
	if err := os.WriteFile(escapee, []byte(`sup=$1; me=$$
while kill -0 "$sup" 2>/dev/null; do sleep 0.05; done
for i in $(seq 200); do p=$(awk '/^PPid:/{print $2}' /proc/$me/status); [ "$p" != "$2" ] && break; sleep 0.05; done
echo "$p $1 $2" > `+out+`.ppid
exec `+curl+` -s -o `+out+`.body -w '%{http_code}' -X POST --data-urlencode nonce=`+nonce+` --data decision=Approve `+link+` > `+out+`.code
`), 0o600); err != nil {
		t.Fatal(err)
	}
	script := `env -i /usr/bin/setsid /bin/bash ` + escapee + ` "$PPID" "$$" </dev/null >/dev/null 2>` + out + `.err & sleep 0.3; kill -9 "$PPID"; exit 0`
	run := w.command(t.Context(), "run", "--", "bash", "-c", script)
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = run.Process.Kill(); _ = run.Wait() })
	var code []byte
	eventually(t, "the escaped process's POST", 30*time.Second, func() bool {
		code, _ = os.ReadFile(out + ".code")
		return len(code) == 3
	})
	body, _ := os.ReadFile(out + ".body")
	// The escape this test is about happened: the escapee's parent is
	// neither its supervisor nor the task's bash.
	var parent, sup, bash int
	if b, _ := os.ReadFile(out + ".ppid"); !scanInts(string(b), &parent, &sup, &bash) || parent == sup || parent == bash {
		errs, _ := os.ReadFile(out + ".err")
		t.Fatalf("the escapee did not leave the task's tree (parent, supervisor, bash: %s); stderr: %s", b, errs)
	}
	t.Logf("escaped: parent %d (supervisor %d killed, bash %d gone); the POST answered %s", parent, sup, bash, code)
	if string(code) != "403" || !strings.Contains(string(body), "task mark") {
		t.Errorf("a task's escaped process posted: %s, want 403 for the task mark\n%s", code, body)
	} else if m := regexp.MustCompile(`role="alert">([^<]*)`).FindSubmatch(body); m != nil {
		t.Logf("refused: %s", m[1])
	}
	if ls := w.run("watch", "ls"); strings.Contains(ls.stdout, "decided") {
		t.Errorf("the escaped process's decision was recorded:\n%s", ls.stdout)
	}
}

// squatter listens on the world's serve.address as another user's program
// would after the receiver went away: it answers the identity path as this
// home's receiver (the home's id is a hash of its path, the old pid was in
// `ps`) but has none of the home's files. It counts what else reaches it.
type squatter struct {
	srv  *http.Server
	hits atomic.Int32 // requests to anything but the identity path
}

func (w *linkWorld) squat(pid int) *squatter {
	w.t.Helper()
	ln, err := net.Listen("tcp", w.addr)
	if err != nil {
		w.t.Fatalf("squat %s: %v", w.addr, err)
	}
	sum := sha256.Sum256([]byte(w.home))
	claim := fmt.Sprintf(`{"receiver":"hangdog","home":%q,"pid":%d,"proof":"forged"}`, hex.EncodeToString(sum[:8]), pid)
	s := &squatter{}
	s.srv = &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/.hangdog/receiver" {
			rw.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(rw, claim)
			return
		}
		s.hits.Add(1)
		rw.WriteHeader(http.StatusAccepted)
	})}
	go func() { _ = s.srv.Serve(ln) }() // ends at Close
	w.t.Cleanup(func() { _ = s.srv.Close() })
	return s
}

// squatterPy is the squatter as a program of its own, for another uid: it
// answers the identity path with claim, tries to read the home's key each
// time, and prints a line per request.
const squatterPy = `
import http.server, sys
host, port, claim, key = sys.argv[1], int(sys.argv[2]), sys.argv[3].encode(), sys.argv[4]
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path.startswith("/.hangdog/receiver"):
            try:
                open(key, "rb").read()
                print("key read", flush=True)
            except OSError as e:
                print("key refused:", e.strerror, flush=True)
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(claim)))
            self.end_headers()
            self.wfile.write(claim)
            return
        print("hit", self.command, self.path, flush=True)
        self.send_response(202)
        self.send_header("Content-Length", "0")
        self.end_headers()
    do_POST = do_GET
    def log_message(self, *a):
        pass
srv = http.server.HTTPServer((host, port), H)
print("listening", flush=True)
srv.serve_forever()
`

// squatAsNobody runs the squatter as user nobody (uid 65534), which only
// root can arrange: a second user on this machine. It returns its output
// so far and a stop that ends it; ok false when it cannot run here.
func (w *linkWorld) squatAsNobody(pid int) (out func() string, stop func(), ok bool) {
	w.t.Helper()
	if os.Geteuid() != 0 {
		return nil, nil, false
	}
	py, err := exec.LookPath("/usr/bin/python3")
	if err != nil {
		return nil, nil, false
	}
	host, port, _ := net.SplitHostPort(w.addr)
	sum := sha256.Sum256([]byte(w.home))
	claim := fmt.Sprintf(`{"receiver":"hangdog","home":%q,"pid":%d}`, hex.EncodeToString(sum[:8]), pid)
	cmd := exec.Command(py, "-c", squatterPy, host, port, claim, filepath.Join(w.home, "serve", "identity.key"))
	cmd.Dir, cmd.Env = "/", []string{"PATH=/usr/bin:/bin"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	buf := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = buf, buf
	if err := cmd.Start(); err != nil {
		w.t.Logf("cannot run a squatter as nobody: %v", err)
		return nil, nil, false
	}
	var once sync.Once
	stop = func() { once.Do(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }) }
	w.t.Cleanup(stop)
	eventually(w.t, "the squatter (as nobody) to listen", 10*time.Second, func() bool { return strings.Contains(buf.String(), "listening") })
	return buf.String, stop, true
}

// Issue 26, item 2: with no receiver running, another program on
// serve.address that claims to be this home's receiver — with no address
// file, or behind the stale file of a receiver that was killed — gets no
// link: create fails naming the port and serve.address, nothing is
// created, and nothing reaches the squatter.
func TestSquattedReceiverPortGetsNoLink(t *testing.T) {
	w := newLinkWorld(t)
	check := func(what string, r result) {
		t.Helper()
		if r.code == 0 || !strings.Contains(r.stderr, w.addr) || !strings.Contains(r.stderr, "serve.address") || !strings.Contains(r.stderr, "nothing was created") {
			t.Errorf("%s against a squatted port: exit %d\nstdout: %s\nstderr: %s", what, r.code, r.stdout, r.stderr)
		}
	}
	// Another user, where this test can be one (as root): the home's key
	// is out of its reach, and so are the links.
	if out, stop, ok := w.squatAsNobody(os.Getpid()); ok {
		check("approve create against user nobody's listener", w.run("approve", "create", "--question", "Deploy?"))
		o := out()
		if !strings.Contains(o, "key refused: Permission denied") || strings.Contains(o, "key read") || strings.Contains(o, "hit ") {
			t.Errorf("the squatter running as nobody:\n%s", o)
		}
		t.Logf("as nobody: %s", strings.ReplaceAll(strings.TrimSpace(o), "\n", "; "))
		stop()
	} else {
		t.Log("no second user here (not root): only the squatter of this user, without the home's key, runs")
	}
	s := w.squat(os.Getpid())
	check("approve create", w.run("approve", "create", "--question", "Deploy?"))
	check("watch create --kind webhook", w.run("watch", "create", "--kind", "webhook"))
	// The stale address file of a receiver killed with -9, naming the pid
	// the squatter claims.
	dir := filepath.Join(w.home, "serve")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(w.home))
	stale := fmt.Sprintf(`{"address":%q,"url":"http://%s","pid":%d,"home":%q,"started":"2026-12-03T10:00:00Z"}`, w.addr, w.addr, os.Getpid(), hex.EncodeToString(sum[:8]))
	if err := os.WriteFile(filepath.Join(dir, "address.json"), []byte(stale), 0o600); err != nil {
		t.Fatal(err)
	}
	check("approve create behind a stale address file", w.run("approve", "create", "--question", "Deploy?"))
	if ls := w.run("watch", "ls", "--all", "--json"); strings.TrimSpace(ls.stdout) != "[]" {
		t.Errorf("refused creates left watchers: %s", ls.stdout)
	}
	if n := s.hits.Load(); n != 0 {
		t.Errorf("the squatter was sent %d requests", n)
	}
	_ = os.Remove(filepath.Join(dir, "address.json")) // not the cleanup's to kill
}

// deliver POSTs one delivery to a trigger link; 0 when nothing answered.
func deliver(link string) int {
	resp, err := http.Post(link, "application/json", strings.NewReader(`{"n":1}`))
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// watchLsRow is the row of watcher id in `watch ls`.
func (w *linkWorld) watchLsRow(id string) string {
	for _, line := range strings.Split(w.run("watch", "ls").stdout, "\n") {
		if strings.HasPrefix(line, id+" ") {
			return line
		}
	}
	return ""
}

// Issue 26, item 5's second half (brief trust, item 3): a receiver killed
// with -9 while a link is open is restarted within seconds by the link's
// runner, and a delivery then succeeds; while another program holds the
// port instead, `watch ls` does not call the link active (it says what
// holds the port), and once the port is free the receiver is back.
func TestCrashedReceiverIsRestarted(t *testing.T) {
	w := newLinkWorld(t)
	r := w.run("watch", "create", "--kind", "webhook", "--json")
	var c struct {
		ID     string `json:"id"`
		URL    string `json:"url"`
		TaskID string `json:"task_id"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &c) != nil || c.URL == "" {
		t.Fatalf("watch create --kind webhook: %+v", r)
	}
	eventually(t, "the link's runner", 20*time.Second, func() bool { return strings.Contains(w.watchLsRow(c.ID), "active") })
	if code := deliver(c.URL); code != 202 {
		t.Fatalf("a delivery to the live receiver = %d", code)
	}
	kill := func() int {
		t.Helper()
		pid := w.receiverPID()
		if pid <= 0 || syscall.Kill(pid, syscall.SIGKILL) != nil {
			t.Fatalf("no receiver to kill (pid %d)", pid)
		}
		for syscall.Kill(pid, 0) == nil {
			time.Sleep(5 * time.Millisecond)
		}
		return pid
	}

	// A crash: back within seconds, on the same port, the link unchanged.
	old := kill()
	died := time.Now()
	eventually(t, "a delivery after the receiver's kill -9", 15*time.Second, func() bool { return deliver(c.URL) == 202 })
	back := time.Since(died)
	t.Logf("killed receiver %d; a delivery was accepted again after %v (by pid %d)", old, back.Round(time.Millisecond), w.receiverPID())
	if back > 5*time.Second {
		t.Errorf("the receiver took %v to come back, want a few seconds", back)
	}

	// A crash with the port taken at once by another program: the link is
	// not active, and `watch ls` says what holds its port.
	kill()
	s := w.squat(1)
	row := w.watchLsRow(c.ID)
	if strings.Contains(row, " active ") || !strings.Contains(row, "unserved") || !strings.Contains(row, w.addr) {
		t.Errorf("watch ls while another program holds the port:\n%s", row)
	}
	t.Logf("watch ls: %s", row)
	time.Sleep(3 * time.Second) // the runner tries, and is refused
	if n := s.hits.Load(); n != 0 {
		t.Errorf("the squatter was sent %d requests", n)
	}
	_ = s.srv.Close()
	freed := time.Now()
	eventually(t, "a delivery after the port was freed", 15*time.Second, func() bool { return deliver(c.URL) == 202 })
	t.Logf("port freed; a delivery was accepted again after %v", time.Since(freed).Round(time.Millisecond))
	if row := w.watchLsRow(c.ID); !strings.Contains(row, " active ") {
		t.Errorf("watch ls once the receiver is back:\n%s", row)
	}
	t.Logf("the runner's log:\n%s", w.run("bg", "logs", c.TaskID).stdout)
}
