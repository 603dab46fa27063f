package main

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestForegroundServerComesBackInSeconds: at default settings a server an
// agent starts in the foreground is detached with its address within
// seconds of going quiet, and keeps serving; a program that only listens
// quietly for a while and ends is left to end.
func TestForegroundServerComesBackInSeconds(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	t.Run("server", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		dir := t.TempDir()
		r := e.runJSON(t, dir, "python3 -m http.server 0 --bind 127.0.0.1")
		if r.TaskID != "" {
			defer e.run("bg", "kill", r.TaskID)
		}
		addr := regexp.MustCompile(`listening on (127\.0\.0\.1:\d+)`).FindStringSubmatch(r.Reason)
		if r.Status != "detached" || addr == nil || r.DurationMS > 15000 {
			t.Fatalf("http.server: status %s after %d ms, reason %q; want detached within 15 s naming its address", r.Status, r.DurationMS, r.Reason)
		}
		get := e.runJSON(t, dir, "--", "python3", "-c", "import urllib.request,sys; print(urllib.request.urlopen('http://"+addr[1]+"/').status)")
		if get.Status != "exited" || get.ExitCode == nil || *get.ExitCode != 0 || strings.TrimSpace(get.Output) != "200" {
			t.Errorf("the next call could not reach the detached server: %+v", get)
		}
	})
	t.Run("quiet listener that ends", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		r := e.runJSON(t, t.TempDir(), "--", "python3", "-c",
			"import socket,time; s=socket.socket(); s.bind(('127.0.0.1',0)); s.listen(); print('bound'); time.sleep(12); print('finished')")
		if r.Status != "exited" || !strings.Contains(r.Output, "finished") {
			t.Errorf("a program that listens quietly for 12 s and ends: status %s after %d ms, reason %q", r.Status, r.DurationMS, r.Reason)
		}
		if r.TaskID != "" && r.Status == "detached" {
			e.run("bg", "kill", r.TaskID)
		}
	})
}
