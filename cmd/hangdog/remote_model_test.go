package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
)

// stuckModel is an OpenAI-compatible model that calls everything stuck; the
// channel gets the Authorization header of each request.
func stuckModel(t *testing.T) (*httptest.Server, <-chan string) {
	t.Helper()
	content := `{"status":{"choice":"stuck","confidence":0.97,"evidence":["the model says stuck"]},
		"persistent":{"value":0.05,"evidence":["a one-off read"]},
		"stop":{"value":0.9,"evidence":["nothing will write"]},
		"expect":{"choice":"seconds","confidence":0.6,"evidence":["cat of a file"]}}`
	reply, err := json.Marshal(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": content}}}})
	if err != nil {
		t.Fatal(err)
	}
	auth := make(chan string, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		select {
		case auth <- r.Header.Get("Authorization"):
		default:
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(reply)
	}))
	t.Cleanup(srv.Close)
	return srv, auth
}

// The supervisor links no HTTP client: it asks a remote model through
// `hangdog __ask`. A command blocked on a FIFO leaves the local judge unsure
// (stuck, confidence 0.5), so the model is asked at the first due check; its
// answer reaches the check, the key reaches the model from the environment,
// and the idle trigger then detaches the command.
func TestWatchdogAsksRemoteModelThroughHelper(t *testing.T) {
	const key = "sk-e2e-5c1d7a9b3e2f4061"
	for _, tt := range []struct {
		name string
		bin  func(t *testing.T) string
	}{
		{"hangdog-supervisor asks through the hangdog beside it", func(*testing.T) string { return hangdogBin }},
		{"hangdog as its own supervisor asks through itself", copyAlone},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv, auth := stuckModel(t)
			fifo := filepath.Join(t.TempDir(), "never-written")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			e := newEnv(t)
			e.extra = []string{"HANGDOG_DEBUG_WATCHDOG=1", "TYPESAFE_API_KEY=",
				"HANGDOG_OPENAI_BASE_URL=" + srv.URL + "/v1", "HANGDOG_OPENAI_MODEL=llama3.1", "OPENAI_API_KEY=" + key}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			c := exec.CommandContext(ctx, tt.bin(t), append(append([]string{"run", "--json"}, fastChecks...), "cat "+fifo)...)
			c.Env = e.environ()
			out, err := c.Output()
			var rep runReport
			if jerr := json.Unmarshal(out, &rep); jerr != nil {
				t.Fatalf("run --json: %v (%v) in %q", jerr, err, out)
			}
			if rep.TaskID != "" {
				defer e.run("bg", "kill", rep.TaskID)
			}
			if rep.Status != "detached" || !strings.Contains(rep.Reason, "stuck") {
				t.Fatalf("status %q reason %q, want detached as stuck", rep.Status, rep.Reason)
			}
			select {
			case got := <-auth:
				if got != "Bearer "+key {
					t.Errorf("the model saw Authorization %q, want the key from OPENAI_API_KEY", got)
				}
			default:
				t.Fatal("the model was never asked")
			}
			log := e.run("log", "--task", rep.TaskID)
			if !strings.Contains(log.stdout, "remote model asked (openai)") || !strings.Contains(log.stdout, "the model says stuck") {
				t.Errorf("the debug log does not show the model's answer:\n%s", log.stdout)
			}
		})
	}
}

// What a supervisor has to say about its task goes to the task's
// supervisor.log: here, that the configured model is unusable, which it
// finds out at the first check.
func TestSupervisorWarningsReachItsLog(t *testing.T) {
	e := newEnv(t)
	e.extra = []string{"TYPESAFE_API_KEY=", "HANGDOG_OPENAI_BASE_URL=ftp://nowhere", "HANGDOG_OPENAI_MODEL=m"}
	r := e.run("run", "--", "sleep", "1.5")
	if r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	eventually(t, "the warning in supervisor.log", 10*time.Second, func() bool {
		b, _ := os.ReadFile(bgtasks.Opened(e.home).SupervisorLogPath("t1"))
		return strings.Contains(string(b), "decision model") && strings.Contains(string(b), "ftp://nowhere")
	})
}
