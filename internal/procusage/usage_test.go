package procusage

import (
	"context"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestTreeSumsEveryLiveDescendant starts a real tree — bash, a sleeping
// child and a busy grandchild — under this test process, and reads it.
func TestTreeSumsEveryLiveDescendant(t *testing.T) {
	cmd := exec.Command("bash", "-c", `sleep 30 & (while :; do :; done) & wait`)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // the whole group
		cmd.Wait()
	})
	ctx := context.Background()
	deadline := time.Now().Add(10 * time.Second)
	var u Usage
	for time.Now().Before(deadline) {
		table, err := Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// Root the walk at this test process: bash and its two children
		// are below it, along with nothing else this test started.
		u = table.Tree(ctx, os.Getpid())
		if u.Procs >= 3 && u.CPU >= 200*time.Millisecond {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if u.Procs < 3 {
		t.Fatalf("Tree found %d processes, want bash, sleep and the busy loop: %+v", u.Procs, u)
	}
	if u.CPU < 200*time.Millisecond {
		t.Errorf("Tree's CPU time %v does not include the busy loop", u.CPU)
	}
	if u.RSS < 1<<20 {
		t.Errorf("Tree's resident memory %d bytes is less than bash alone takes", u.RSS)
	}
	// The whole table, read where the kernel lists no children, finds the
	// same tree.
	whole, err := readWhole(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if w := whole.Tree(ctx, os.Getpid()); w.Procs != u.Procs {
		t.Errorf("the whole table finds %d processes under this test, the children lists %d", w.Procs, u.Procs)
	}
	table, err := Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if none := table.Tree(ctx, 1<<30); none.Procs != 0 || none.CPU != 0 || none.RSS != 0 {
		t.Errorf("a pid with no children has usage %+v", none)
	}
}
