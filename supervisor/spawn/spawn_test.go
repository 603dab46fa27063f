package spawn

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/hangdog/hangdog/internal/hiddenarg"
)

// A supervisor starts in a session of its own, with its stdio on /dev/null
// and the caller link as fd 3; a stand-in script reports what it got.
func TestStartGivesTheLinkAsFd3InANewSession(t *testing.T) {
	script := filepath.Join(t.TempDir(), "sup.sh")
	body := "#!/bin/sh\necho \"$1 $(cut -d' ' -f6 /proc/$$/stat) $(readlink /proc/$$/fd/0) $SPAWN_TEST\" >&3\n"
	if err := os.WriteFile(script, []byte(body), 0o700); err != nil {
		t.Fatal(err)
	}
	p, err := Start(script, append(os.Environ(), "SPAWN_TEST=env-passed"))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Link.Close()
	line, err := bufio.NewReader(p.Link).ReadString('\n')
	if err != nil {
		t.Fatalf("read the link: %v", err)
	}
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(p.PID, &ws, 0, nil); err != nil || ws.ExitStatus() != 0 {
		t.Fatalf("wait for the stand-in: %v, status %v", err, ws)
	}
	want := hiddenarg.Supervise + " " + strconv.Itoa(p.PID) + " /dev/null env-passed"
	if strings.TrimSpace(line) != want {
		t.Fatalf("the stand-in saw %q, want %q (argument, own session, stdin, environment)", strings.TrimSpace(line), want)
	}
}

func TestStartNamesTheProgramItCouldNotStart(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-supervisor")
	_, err := Start(missing, nil)
	if err == nil || !strings.Contains(err.Error(), missing) || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Start(%s) = %v, want an error naming it", missing, err)
	}
}

// Beside finds an executable next to the running binary (here the test
// binary finds itself) and says so when there is none.
func TestBesideFindsOnlyExecutablesNextToTheRunningBinary(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := Beside(filepath.Base(self)); err != nil || got != self {
		t.Fatalf("Beside(%s) = %q, %v; want the test binary itself", filepath.Base(self), got, err)
	}
	if _, err := Beside("no-such-program-beside"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Beside of a missing program: %v, want not-exist", err)
	}
}
