//go:build linux

package faults

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
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
	// posts. `exec` makes curl the escapee itself (the socket's holder).
	escapee := filepath.Join(w.root, "escape.sh")
	if err := os.WriteFile(escapee, []byte(`sup=$1; me=$$
while kill -0 "$sup" 2>/dev/null; do sleep 0.05; done
for i in $(seq 100); do p=$(awk '/^PPid:/{print $2}' /proc/$me/status); [ "$p" != "$2" ] && break; sleep 0.05; done
echo "$p $1 $2" > `+out+`.ppid
exec `+curl+` -s -o `+out+`.body -w '%{http_code}' -X POST --data-urlencode nonce=`+nonce+` --data decision=Approve `+link+` > `+out+`.code
`), 0o600); err != nil {
		t.Fatal(err)
	}
	script := `env -i /usr/bin/setsid /bin/bash ` + escapee + ` "$PPID" "$$" </dev/null >/dev/null 2>` + out + `.err & sleep 0.3; kill -9 "$PPID"; sleep 30`
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
