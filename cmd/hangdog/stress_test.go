package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
)

// TestConcurrentRunsCorruptNothing runs 20 foreground runs, background runs
// and readers at once, then checks every record and every byte.
func TestConcurrentRunsCorruptNothing(t *testing.T) {
	e := newEnv(t)
	const n = 20
	var wg sync.WaitGroup
	errs := make(chan string, 10*n)
	for i := 0; i < n; i++ {
		wg.Add(3)
		go func(i int) {
			defer wg.Done()
			r := e.run("run", fmt.Sprintf("for j in 1 2 3; do echo fg-%d-$j; done; exit %d", i, i%7))
			want := fmt.Sprintf("fg-%d-1\nfg-%d-2\nfg-%d-3\n", i, i, i)
			if r.code != i%7 || r.stdout != want {
				errs <- fmt.Sprintf("run %d: exit %d stdout %q", i, r.code, r.stdout)
			}
		}(i)
		go func(i int) {
			defer wg.Done()
			r := e.run("bg", "run", fmt.Sprintf("echo bg-%d", i))
			if r.code != 0 {
				errs <- fmt.Sprintf("bg run %d: exit %d %s", i, r.code, r.stderr)
			}
		}(i)
		go func() {
			defer wg.Done()
			for _, args := range [][]string{{"bg", "ls", "--json", "--all"}, {"events", "--json"}} {
				if r := e.run(args...); r.code != 0 {
					errs <- fmt.Sprintf("%v: exit %d %s", args, r.code, r.stderr)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for msg := range errs {
		t.Error(msg)
	}
	// Every background task finishes; then all 40 tasks are distinct and whole.
	eventually(t, "the background tasks to finish", 30*time.Second, func() bool {
		for _, tk := range e.tasks() {
			if tk.Result == nil {
				return false
			}
		}
		return true
	})
	tasks := e.tasks()
	if len(tasks) != 2*n {
		t.Fatalf("%d tasks listed, want %d", len(tasks), 2*n)
	}
	seen := map[string]bool{}
	for _, tk := range tasks {
		if seen[tk.ID] {
			t.Errorf("task id %s listed twice", tk.ID)
		}
		seen[tk.ID] = true
		out, err := os.ReadFile(bgtasks.Opened(e.home).OutputPath(tk.ID))
		if err != nil {
			t.Fatal(err)
		}
		s := string(out)
		if !(strings.HasPrefix(s, "fg-") && strings.Count(s, "\n") == 3) && !(strings.HasPrefix(s, "bg-") && strings.Count(s, "\n") == 1) {
			t.Errorf("task %s output %q is not one run's", tk.ID, s)
		}
	}
	// The event log: every line parses, sequence numbers unique and rising,
	// one completion per background task.
	f, err := os.Open(filepath.Join(e.home, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	last, exited := int64(0), 0
	for sc.Scan() {
		var ev struct {
			Seq  int64  `json:"seq"`
			Kind string `json:"kind"`
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("corrupt event line %q: %v", sc.Text(), err)
		}
		if ev.Seq <= last {
			t.Errorf("event seq %d after %d", ev.Seq, last)
		}
		last = ev.Seq
		if ev.Kind == "exited" {
			exited++
		}
	}
	if exited != n {
		t.Errorf("%d completion events, want %d", exited, n)
	}
}

// TestHugeStreamStaysInBoundedMemory pushes 2 GB through a run: every byte
// arrives, and neither the caller nor the supervisor grows with the stream.
func TestHugeStreamStaysInBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 2 GB through a PTY")
	}
	e := newEnv(t)
	const size = 2 << 30
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	c := e.command(ctx, "run", "--", "head", "-c", strconv.Itoa(size), "/dev/zero")
	stdout, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	// Watch both processes' peak resident sets (VmHWM) while the stream flows.
	var supMax, callerMax int64
	stop := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		for {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			if kb := peakRSSKB(c.Process.Pid); kb > callerMax {
				callerMax = kb
			}
			b, err := os.ReadFile(bgtasks.Opened(e.home).MetaPath("t1"))
			if err != nil {
				continue
			}
			var m struct {
				Sup int `json:"supervisor_pid"`
			}
			if json.Unmarshal(b, &m) != nil || m.Sup == 0 {
				continue
			}
			if kb := peakRSSKB(m.Sup); kb > supMax {
				supMax = kb
			}
			if kb := peakRSSKB(c.Process.Pid); kb > callerMax {
				callerMax = kb
			}
		}
	}()
	n, err := io.Copy(io.Discard, stdout)
	close(stop)
	<-watched
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Wait(); err != nil {
		t.Fatalf("run: %v", err)
	}
	if n != size {
		t.Fatalf("got %d bytes, want %d", n, size)
	}
	const limitKB = 64 << 10
	if callerMax > limitKB || supMax > limitKB {
		t.Errorf("peak RSS caller %d KB, supervisor %d KB; want both under %d KB for a 2 GB stream", callerMax, supMax, limitKB)
	}
	if supMax == 0 || callerMax == 0 {
		t.Error("never saw the processes' memory")
	}
	if st, err := os.Stat(bgtasks.Opened(e.home).OutputPath("t1")); err != nil || st.Size() != size {
		t.Errorf("output.log: %v, size %v; want %d", err, st, size)
	}
	t.Logf("2 GB: peak RSS caller %d KB, supervisor %d KB", callerMax, supMax)
}

// peakRSSKB is a live process's peak resident set (VmHWM), 0 once it is gone.
func peakRSSKB(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
			return kb
		}
	}
	return 0
}
