//go:build linux

package sampler

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// runForeignSampler runs a setuid program (su asking for a password) on a
// PTY and samples it from an ordinary user, who cannot read the program's
// syscall or fds: the case of sudo under an agent. It prints the sample that
// first shows a tty reader, or the last one, as JSON.
func runForeignSampler(program string) int {
	cmd := exec.Command(program, "-c", "true", "root")
	master, err := pty.Start(cmd)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// Nothing drains the master: su's prompt fits in the PTY buffer, and a
	// blocked reader would keep Close from hanging the terminal up.
	defer func() {
		_ = cmd.Process.Kill()
		_ = master.Close() // if the kill was refused, su sees a hangup
		_ = cmd.Wait()
	}()
	s := New(os.Getpid(), master)
	var tree Tree
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if tree, err = s.Sample(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if tree.ReadingTTY {
			break
		}
	}
	if err := json.NewEncoder(os.Stdout).Encode(tree); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// A password prompt of a setuid program cannot be seen through its syscall
// or fds by the user running the supervisor; the terminal's secret mode with
// that program sleeping in the foreground is the evidence left.
func TestForeignPasswordPromptIsReadingTTY(t *testing.T) {
	su, err := exec.LookPath("su")
	if err != nil {
		t.Skip("su not installed")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root to run the sampler as another user")
	}
	// The sampler must run as nobody, who cannot reach a 0700 test dir.
	dir, err := os.MkdirTemp("", "sampler-foreign-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	bin := filepath.Join(dir, "sampler.test")
	src, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, src, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-test.run=^$")
	cmd.WaitDelay = time.Second
	cmd.Env = []string{helperEnv + "=foreign:" + su, "PATH=/usr/bin:/bin"}
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("foreign sampler: %v", err)
	}
	var tree Tree
	if err := json.Unmarshal(out, &tree); err != nil {
		t.Fatalf("decode %q: %v", out, err)
	}
	if !tree.ReadingTTY || tree.ReadingTTYComm != "su" || tree.ReadingTTYBy != "termios" || tree.TTYMode != TTYSecret {
		t.Errorf("su prompt: reading %v by %q (%s), mode %q; want su by termios in secret mode\n%s",
			tree.ReadingTTY, tree.ReadingTTYBy, tree.ReadingTTYComm, tree.TTYMode, dump(tree))
	}
	t.Logf("as nobody:\n%s", dump(tree))
	if tree.Complete {
		t.Errorf("a sample with unreadable syscall and fds says it is complete\n%s", dump(tree))
	}
}
