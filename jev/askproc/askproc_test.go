package askproc_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hangdog/hangdog/internal/hiddenarg"
	"github.com/hangdog/hangdog/jev"
	"github.com/hangdog/hangdog/jev/askproc"
	"github.com/hangdog/hangdog/jev/remote"
)

// This test binary, re-executed, is the helper: helperEnv says how it acts.
const (
	helperEnv    = "ASKPROC_TEST_HELPER"
	pidFileEnv   = "ASKPROC_TEST_PID_FILE"   // where it writes its PID
	stdinFileEnv = "ASKPROC_TEST_STDIN_FILE" // where it copies the request
	keyEnv       = "ASKPROC_TEST_KEY"
	testKey      = "sk-askproc-3f9a1c7e5b2d4086a1b3c5d7e9f10243"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(helper(mode))
	}
	// A helper built with -race otherwise sleeps a second before exiting.
	os.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	os.Exit(m.Run())
}

// helper acts as `hangdog __ask` does (mode "serve", through the real
// remote.ServeAsk), or misbehaves as mode says.
func helper(mode string) int {
	if len(os.Args) != 2 || os.Args[1] != hiddenarg.Ask {
		fmt.Fprintf(os.Stderr, "helper started with %q, want [%s]\n", os.Args[1:], hiddenarg.Ask)
		return 99
	}
	if f := os.Getenv(pidFileEnv); f != "" {
		if err := os.WriteFile(f, []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 98
		}
	}
	switch mode {
	case "serve":
		in, err := io.ReadAll(os.Stdin)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 98
		}
		if f := os.Getenv(stdinFileEnv); f != "" {
			if err := os.WriteFile(f, in, 0o600); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 98
			}
		}
		return remote.ServeAsk(bytes.NewReader(in), os.Stdout, os.Getenv)
	case "exit":
		fmt.Fprintln(os.Stderr, "helper: the model client broke")
		return 3
	case "garbage":
		fmt.Print("<html>502 Bad Gateway</html>")
		return 0
	case "flood":
		chunk := bytes.Repeat([]byte(`[`), 64<<10)
		for {
			if _, err := os.Stdout.Write(chunk); err != nil {
				return 1
			}
		}
	}
	fmt.Fprintf(os.Stderr, "unknown helper mode %q\n", mode)
	return 98
}

func testExe(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// chatServer is an OpenAI-compatible model: it records each request's
// Authorization header and answers with respond.
type chatServer struct {
	srv  *httptest.Server
	mu   sync.Mutex
	auth []string
}

func newChatServer(t *testing.T, respond func(w http.ResponseWriter, r *http.Request)) *chatServer {
	t.Helper()
	cs := &chatServer{}
	cs.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		cs.mu.Lock()
		cs.auth = append(cs.auth, r.Header.Get("Authorization"))
		cs.mu.Unlock()
		respond(w, r)
	}))
	t.Cleanup(cs.srv.Close)
	return cs
}

func (cs *chatServer) authorizations() []string {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return append([]string(nil), cs.auth...)
}

const chatContent = `{"status":{"choice":"looping","confidence":0.8,"evidence":["same error every second"]},
	"persistent":{"value":0.05,"evidence":["a script"]},
	"stop":{"value":0.75,"evidence":["it repeats"]},
	"expect":{"choice":"seconds","confidence":0.5,"evidence":["a curl call"]}}`

func answerChat(w http.ResponseWriter, _ *http.Request) {
	body, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": chatContent}}}})
	w.Header().Set("Content-Type", "application/json")
	w.Write(body)
}

// openaiConfig is the configuration the supervisor resolves for the server
// at url, with the key in keyEnv.
func openaiConfig(t *testing.T, url string, timeout time.Duration) jev.RemoteConfig {
	t.Helper()
	cfg, ok, err := jev.ResolveRemote("custom", jev.RemoteConfig{Backend: jev.BackendOpenAI, URL: url + "/v1", Model: "llama3.1", APIKeyEnv: keyEnv, Timeout: timeout}, os.Getenv)
	if err != nil || !ok {
		t.Fatalf("ResolveRemote = %v, %v", ok, err)
	}
	return cfg
}

func state() jev.State {
	return jev.State{Command: "./retry-forever.sh", Elapsed: 10 * time.Minute, SinceOutput: time.Second, SampleComplete: true, Procs: 2,
		Tail: []string{"error: connection refused, retrying", "error: connection refused, retrying"}}
}

func checkAbstained(t *testing.T, as []jev.Answer, backend string) {
	t.Helper()
	qs := jev.Questions()
	if len(as) != len(qs) {
		t.Fatalf("%d answers to %d questions", len(as), len(qs))
	}
	for i, a := range as {
		if a.ID != qs[i].ID || !a.Abstain || a.Backend != backend {
			t.Errorf("answer %d = %+v, want an abstention from %s to %q", i, a, backend, qs[i].ID)
		}
	}
}

// The answer comes from the model through a real helper process; the key
// reaches the model from the helper's environment and is not in the request
// the helper was sent.
func TestAnswerReachesAskAndKeyTravelsByEnvironmentOnly(t *testing.T) {
	cs := newChatServer(t, answerChat)
	stdinCopy := filepath.Join(t.TempDir(), "request.json")
	t.Setenv(helperEnv, "serve")
	t.Setenv(stdinFileEnv, stdinCopy)
	t.Setenv(keyEnv, testKey)

	b := askproc.New(testExe(t), openaiConfig(t, cs.srv.URL, 10*time.Second))
	if b.Name() != jev.BackendOpenAI {
		t.Errorf("Name = %q, want %q", b.Name(), jev.BackendOpenAI)
	}
	as, err := b.Ask(context.Background(), state(), jev.Questions())
	if err != nil {
		t.Fatalf("Ask: %v", err)
	}
	if len(as) != 4 || as[0].Abstain || as[0].Choice != jev.Looping || as[0].Confidence != 0.8 || as[0].Backend != jev.BackendOpenAI || as[2].Value != 0.75 || as[3].Choice != jev.ExpectSeconds {
		t.Errorf("answers = %+v", as)
	}
	if got := cs.authorizations(); len(got) != 1 || got[0] != "Bearer "+testKey {
		t.Errorf("the model saw Authorization %q, want the key from the helper's environment", got)
	}
	req, err := os.ReadFile(stdinCopy)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(req, []byte(testKey)) {
		t.Errorf("the request to the helper carries the API key: %s", req)
	}
	if !bytes.Contains(req, []byte(`"api_key_env":"`+keyEnv+`"`)) || !bytes.Contains(req, []byte("retry-forever.sh")) {
		t.Errorf("the request lacks the key's variable name or the state: %s", req)
	}
}

func TestCancelKillsAHelperWaitingOnTheModel(t *testing.T) {
	asked, gone, release := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var once sync.Once
	cs := newChatServer(t, func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { close(asked) })
		select {
		case <-r.Context().Done(): // the helper's connection closed
			close(gone)
		case <-release:
		}
	})
	defer close(release)
	pidFile := filepath.Join(t.TempDir(), "pid")
	t.Setenv(helperEnv, "serve")
	t.Setenv(pidFileEnv, pidFile)

	b := askproc.New(testExe(t), openaiConfig(t, cs.srv.URL, time.Minute))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type result struct {
		as  []jev.Answer
		err error
	}
	done := make(chan result, 1)
	go func() {
		as, err := b.Ask(ctx, state(), jev.Questions())
		done <- result{as, err}
	}()
	wait := func(ch <-chan struct{}, what string) {
		t.Helper()
		select {
		case <-ch:
		case <-time.After(30 * time.Second):
			t.Fatalf("gave up waiting: %s", what)
		}
	}
	wait(asked, "the helper never asked the model")
	cancel()
	var r result
	select {
	case r = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Ask did not return after its context was cancelled")
	}
	checkAbstained(t, r.as, jev.BackendOpenAI)
	if r.err == nil || !errors.Is(r.err, context.Canceled) {
		t.Errorf("error %v, want one wrapping context.Canceled", r.err)
	}
	wait(gone, "the model still holds the helper's connection")
	b2, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(string(b2))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the helper (PID %d) is still there after Ask returned: kill 0 = %v", pid, err)
	}
}

func TestHelperFailuresAbstain(t *testing.T) {
	cfg := jev.RemoteConfig{Backend: jev.BackendOpenAI, URL: "http://127.0.0.1:9/v1", Model: "m", Timeout: time.Second}
	tests := []struct {
		name, mode, exe string
		want            []string // in the error
	}{
		{"exits non-zero", "exit", "", []string{"no answer", "exit status 3", "the model client broke"}},
		{"writes garbage", "garbage", "", []string{"not JSON", "invalid character"}},
		{"writes without end", "flood", "", []string{"larger than 1048576 bytes"}},
		{"missing", "serve", filepath.Join(t.TempDir(), "hangdog"), []string{"start the helper", "no such file"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(helperEnv, tt.mode)
			exe := tt.exe
			if exe == "" {
				exe = testExe(t)
			}
			as, err := askproc.New(exe, cfg).Ask(context.Background(), state(), jev.Questions())
			checkAbstained(t, as, jev.BackendOpenAI)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if !strings.Contains(err.Error(), exe) {
				t.Errorf("error %q does not name the helper", err)
			}
		})
	}
}

// A configuration the helper cannot use is reported from the helper's side,
// where the key is looked up.
func TestHelperReportsItsConfigurationError(t *testing.T) {
	t.Setenv(helperEnv, "serve")
	cfg := jev.RemoteConfig{Backend: jev.BackendTypesafe, URL: "http://127.0.0.1:9/decide", APIKeyEnv: "ASKPROC_TEST_UNSET_KEY", Timeout: time.Second}
	as, err := askproc.New(testExe(t), cfg).Ask(context.Background(), state(), jev.Questions())
	checkAbstained(t, as, jev.BackendTypesafe)
	if err == nil || !strings.Contains(err.Error(), "set ASKPROC_TEST_UNSET_KEY in the environment") {
		t.Errorf("error %v, want the helper's: the key's variable is not set", err)
	}
}

// A model that fails is the helper's answer too: abstentions and its error.
func TestModelFailureCrossesTheHelper(t *testing.T) {
	cs := newChatServer(t, func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error":"invalid key `+testKey+`"}`)
	})
	t.Setenv(helperEnv, "serve")
	t.Setenv(keyEnv, testKey)
	as, err := askproc.New(testExe(t), openaiConfig(t, cs.srv.URL, 5*time.Second)).Ask(context.Background(), state(), jev.Questions())
	checkAbstained(t, as, jev.BackendOpenAI)
	if err == nil || !strings.Contains(err.Error(), "401") || strings.Contains(err.Error(), testKey) {
		t.Errorf("error %v, want the 401 without the key", err)
	}
}

func TestServeRejectsAnUnusableRequest(t *testing.T) {
	for _, in := range []string{"", "{", `{"config":{"backend":"openai"},"questions":[]}`} {
		var out bytes.Buffer
		code := remote.ServeAsk(strings.NewReader(in), &out, func(string) string { return "" })
		var resp struct {
			Answers []jev.Answer `json:"answers"`
			Error   string       `json:"error"`
		}
		if err := json.Unmarshal(out.Bytes(), &resp); err != nil {
			t.Fatalf("request %q: response %q is not JSON: %v", in, out.Bytes(), err)
		}
		if code != 2 || resp.Error == "" || len(resp.Answers) != 0 {
			t.Errorf("request %q: exit %d, response %+v; want exit 2 and an error", in, code, resp)
		}
	}
}
