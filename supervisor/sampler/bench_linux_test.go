//go:build linux

package sampler

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// The benchmarks re-run this test binary as helpers: a mini supervisor that
// owns a task's tree (a real multi-threaded Go root, as in production) and a
// forker of idle processes that load the machine with unrelated work.
const helperEnv = "HANGDOG_SAMPLER_HELPER"

func TestMain(m *testing.M) {
	switch mode, arg, _ := strings.Cut(os.Getenv(helperEnv), ":"); mode {
	case "":
		os.Exit(m.Run())
	case "supervisor":
		os.Exit(runMiniSupervisor(arg))
	case "sleepers":
		n, _ := strconv.Atoi(arg)
		os.Exit(runSleepers(n))
	case "foreign":
		os.Exit(runForeignSampler(arg))
	default:
		fmt.Fprintf(os.Stderr, "unknown %s mode %q\n", helperEnv, mode)
		os.Exit(2)
	}
}

// runMiniSupervisor runs `bash -c script` as session leader on the PTY slave
// it got as stdin, says "ready PID" and waits.
func runMiniSupervisor(script string) int {
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	cmd := exec.Command("bash", "-c", script)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdin, os.Stdin
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("ready %d\n", cmd.Process.Pid)
	_ = cmd.Wait()
	return 0
}

// runSleepers forks n children that block forever, says "ready" and waits for
// stdin to close. A raw fork of this process is far cheaper than n execs; the
// children only ever make raw syscalls, never touching the Go runtime.
func runSleepers(n int) int {
	for i := 0; i < n; i++ {
		if _, errno := forkSleeper(); errno != 0 {
			fmt.Fprintf(os.Stderr, "fork sleeper %d: %v\n", i, errno)
			return 1
		}
	}
	fmt.Println("ready")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
	return 0
}

//go:nosplit
//go:norace
func forkSleeper() (int, syscall.Errno) {
	pid, _, errno := syscall.RawSyscall6(syscall.SYS_CLONE, uintptr(syscall.SIGCHLD), 0, 0, 0, 0, 0)
	if errno != 0 || pid != 0 {
		return int(pid), errno
	}
	syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_PDEATHSIG, uintptr(syscall.SIGKILL), 0)
	for {
		syscall.RawSyscall6(unix.SYS_PPOLL, 0, 0, 0, 0, 0, 0)
	}
}

func startHelper(b *testing.B, mode string, stdin *os.File) (*exec.Cmd, string) {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+mode)
	cmd.Stdin, cmd.Stderr = stdin, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatalf("start helper %s: %v", mode, err)
	}
	b.Cleanup(func() {
		_ = unix.Kill(-cmd.Process.Pid, unix.SIGKILL)
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		b.Fatalf("helper %s: %v", mode, err)
	}
	return cmd, strings.TrimSpace(line)
}

// startSleepers keeps n idle processes alive, unrelated to any task.
func startSleepers(b *testing.B, n int) {
	b.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { w.Close() })
	startHelper(b, fmt.Sprintf("sleepers:%d", n), r)
	r.Close()
}

// supervisedTree is one task as production has it: a Go root owning a PTY
// whose slave runs bash with the given tree below it.
type supervisedTree struct {
	root   int
	master *os.File
}

const fiveProcesses = "sleep 600 & sleep 600 & sleep 600 & cat; exit"

func startSupervisedTree(b *testing.B, script string, procs int) supervisedTree {
	b.Helper()
	master, slave, err := pty.Open()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { master.Close() })
	helper, ready := startHelper(b, "supervisor:"+script, slave)
	slave.Close()
	bash, err := strconv.Atoi(strings.TrimPrefix(ready, "ready "))
	if err != nil {
		b.Fatalf("helper said %q", ready)
	}
	b.Cleanup(func() { _ = unix.Kill(-bash, unix.SIGKILL) })
	tree := supervisedTree{root: helper.Process.Pid, master: master}
	s := New(tree.root, master)
	for deadline := time.Now().Add(20 * time.Second); ; {
		t, err := s.Sample()
		if err != nil {
			b.Fatal(err)
		}
		if len(t.Procs) == procs && t.ReadingTTY {
			return tree
		}
		if time.Now().After(deadline) {
			b.Fatalf("tree never reached %d processes:\n%s", procs, dump(t))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func cpuTime() time.Duration {
	var ru unix.Rusage
	_ = unix.Getrusage(unix.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkSample samples a 5-process tree with 0, 100 and 5,000 unrelated
// processes alive: the cost must not grow with them. cpu-ns/op is the CPU
// the whole benchmark process spent per sample (user + system).
func BenchmarkSample(b *testing.B) {
	for _, unrelated := range []int{0, 100, 5000} {
		b.Run(fmt.Sprintf("unrelated=%d", unrelated), func(b *testing.B) {
			if unrelated > 0 {
				startSleepers(b, unrelated)
			}
			task := startSupervisedTree(b, fiveProcesses, 5)
			s := New(task.root, task.master)
			start := cpuTime()
			for b.Loop() {
				if _, err := s.Sample(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkSampleCold samples the same tree with a fresh Sampler each time,
// so nothing from a previous sample is reused: the cost when every process
// of the tree ran since the last sample (a busy tree), and of a first sample.
func BenchmarkSampleCold(b *testing.B) {
	task := startSupervisedTree(b, fiveProcesses, 5)
	start := cpuTime()
	for b.Loop() {
		if _, err := New(task.root, task.master).Sample(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}

// BenchmarkSample50TasksEverySecond samples 50 separate 5-process tasks per
// op, as 50 supervisors each sampling once a second would: cpu-%-of-a-core
// is the CPU share that costs in total.
func BenchmarkSample50TasksEverySecond(b *testing.B) {
	const tasks = 50
	samplers := make([]*Sampler, tasks)
	for i := range samplers {
		task := startSupervisedTree(b, fiveProcesses, 5)
		samplers[i] = New(task.root, task.master)
	}
	start := cpuTime()
	for b.Loop() {
		for _, s := range samplers {
			if _, err := s.Sample(); err != nil {
				b.Fatal(err)
			}
		}
	}
	perRound := float64(cpuTime()-start) / float64(b.N)
	b.ReportMetric(perRound, "cpu-ns/op")
	b.ReportMetric(perRound/float64(time.Second)*100, "cpu-%-of-a-core")
}

// BenchmarkSampleThreads samples a 5-process tree in which one process is a
// runtime with 9 threads (a worker pool parked in futex and one thread in
// epoll_wait with a timeout): every thread's syscall is read, which is what
// a multi-threaded process adds to a sample.
func BenchmarkSampleThreads(b *testing.B) {
	if _, err := exec.LookPath("python3"); err != nil {
		b.Skip("python3 makes the threads")
	}
	const threads = `python3 -c 'import select, threading
e = threading.Event()
for _ in range(8): threading.Thread(target=e.wait, daemon=True).start()
threading.Thread(target=lambda: select.epoll().poll(600), daemon=True).start()
e.wait()' & sleep 600 & sleep 600 & cat; exit`
	task := startSupervisedTree(b, threads, 5)
	s := New(task.root, task.master)
	start := cpuTime()
	for b.Loop() {
		if _, err := s.Sample(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}
