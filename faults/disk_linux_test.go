//go:build linux

package faults

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/hangdog/hangdog/bgtasks"
)

// smallDisk mounts a tmpfs of size bytes and returns its path; the test is
// skipped where mounting is not permitted (not root, no CAP_SYS_ADMIN).
func smallDisk(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size="+size+",mode=0700"); err != nil {
		t.Skipf("cannot mount a small tmpfs for the full-disk case (%v); run as root to include it", err)
	}
	t.Cleanup(func() { unix.Unmount(dir, unix.MNT_DETACH) })
	return dir
}

// The case: a 2 MB home and a command printing 10 MB. The caller
// must get every byte, the exit status must be recorded, and the result
// must say how much the log could not keep.
func TestFullDiskKeepsTheCallersOutputAndTheResult(t *testing.T) {
	w := newWorld(t)
	w.home = filepath.Join(smallDisk(t, "2m"), "h")
	const script = `head -c 10000000 /dev/zero | base64 -w 100 | head -c 10000000; echo; echo EXITING; exit 3`

	// --json: the status, the tail and the count.
	rep, r := w.runJSON(script)
	if r.code != 3 || rep["status"] != "exited" || rep["exit_code"] != float64(3) {
		t.Fatalf("report %v (exit %d); stderr: %s", rep, r.code, r.stderr)
	}
	if !strings.Contains(rep["output"].(string), "EXITING") {
		t.Fatalf("the JSON output's tail lacks the last line: %q", tailOf(rep["output"].(string)))
	}
	unlogged, _ := rep["output_unlogged_bytes"].(float64)
	if unlogged < 7e6 {
		t.Fatalf("output_unlogged_bytes = %v, want most of 10 MB", rep["output_unlogged_bytes"])
	}
	id := rep["task_id"].(string)

	// The record: ended, with the count, never "running".
	ls := w.run("bg", "ls", "--all", "--json")
	var tasks []struct {
		ID     string `json:"id"`
		State  string `json:"state"`
		Result *struct {
			ExitCode int   `json:"exit_code"`
			Unlogged int64 `json:"output_unlogged_bytes"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(ls.stdout), &tasks); err != nil {
		t.Fatalf("bg ls --json: %v\n%s\n%s", err, ls.stdout, ls.stderr)
	}
	found := false
	for _, tk := range tasks {
		if tk.ID != id {
			continue
		}
		found = true
		if tk.Result == nil || tk.Result.ExitCode != 3 || tk.Result.Unlogged < 7e6 {
			t.Fatalf("task %s recorded as %+v (state %s), want exit 3 and the unlogged count", id, tk.Result, tk.State)
		}
	}
	if !found {
		t.Fatalf("task %s not listed: %s", id, ls.stdout)
	}
	if _, err := os.Stat(bgtasks.Opened(w.home).ResultPath(id)); err != nil {
		t.Fatalf("no result.json: %v", err)
	}
	// Plain run, once the first task is forgotten: every byte on stdout.
	if r := w.run("bg", "rm", id); r.code != 0 {
		t.Fatalf("bg rm %s: %s", id, r.stderr)
	}
	c := w.command(t.Context(), "run", "--", script)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if code != 3 {
		t.Fatalf("exit %d, want 3; stderr: %s", code, errb.String())
	}
	if want := 10000000 + 1 + len("EXITING\n"); out.Len() < want || !strings.HasSuffix(out.String(), "EXITING\r\n") && !strings.HasSuffix(out.String(), "EXITING\n") {
		t.Fatalf("caller got %d bytes (want about %d ending in EXITING); stderr: %s", out.Len(), want, errb.String())
	}
	if !strings.Contains(errb.String(), "not in its log") {
		t.Fatalf("no message about the output the log could not keep; stderr: %s", errb.String())
	}

}

func tailOf(s string) string {
	if len(s) > 200 {
		return s[len(s)-200:]
	}
	return s
}

// The MCP server's bash tool on the same full disk: the result carries the
// output's real end, the exit code and the warning.
func TestFullDiskMCPBashResult(t *testing.T) {
	w := newWorld(t)
	w.home = filepath.Join(smallDisk(t, "2m"), "h")
	const script = `head -c 4000000 /dev/zero | base64 -w 100; echo EXITING; exit 3`
	input := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bash","arguments":{"command":` + strconvQuote(script) + `}}}`,
	}, "\n") + "\n"
	c := w.command(t.Context(), "mcp")
	c.Stdin = strings.NewReader(input)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	if err := c.Run(); err != nil {
		t.Fatalf("hangdog mcp: %v\n%s", err, errb.String())
	}
	var reply string
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.Contains(line, `"id":2`) {
			reply = line
		}
	}
	for _, want := range []string{"EXITING", "3", "output log could not be written"} {
		if !strings.Contains(reply, want) {
			t.Errorf("bash result lacks %q: %.1500s", want, reply)
		}
	}
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
