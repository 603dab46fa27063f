package receiver

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/settings"
	"github.com/hangdog/hangdog/watch"
)

// Tests that need real processes re-run this test binary with
// RECEIVER_TEST_HELPER set: "serve" is `hangdog serve` (what Ensure
// starts, with short check intervals), "ensure" one Ensure call, "run" a
// the home's watchers' runner (`hangdog __watch`).
const (
	helperEnv    = "RECEIVER_TEST_HELPER"
	helperArgEnv = "RECEIVER_TEST_ARG"
)

func TestMain(m *testing.M) {
	if job := os.Getenv(helperEnv); job != "" {
		os.Exit(helperMain(job))
	}
	os.Exit(m.Run())
}

func helperStore() (*watch.Store, error) {
	reg, err := bgtasks.Open(os.Getenv("HANGDOG_HOME"))
	if err != nil {
		return nil, err
	}
	return watch.OpenStore(reg)
}

func helperMain(job string) int {
	if n, err := strconv.ParseUint(os.Getenv(nofileEnv), 10, 64); err == nil {
		lim := syscall.Rlimit{Cur: n, Max: n}
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
			fmt.Fprintln(os.Stderr, "set RLIMIT_NOFILE:", err)
			return 2
		}
	}
	store, err := helperStore()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	switch job {
	case "serve":
		conf, err := settings.Load(settings.Options{KeepGoing: true})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		err = Serve(ctx, store, ServeOptions{Address: conf.ServeAddress(), Log: os.Stderr,
			CheckEvery: 300 * time.Millisecond, Grace: time.Second, Stay: os.Getenv(helperArgEnv) == "stay"})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 3
		}
	case "ensure":
		ServeCommand = testServeCommand
		os.Setenv(helperEnv, "serve") // what the server it may start runs
		url, err := Ensure(ctx, store)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 4
		}
		fmt.Println(url)
	case "run":
		// The home's runner (its home holds the one watcher, the arg).
		r := &watch.HomeRunner{Store: store, Log: os.Stdout}
		if err := r.Run(ctx); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 5
		}
	default:
		fmt.Fprintln(os.Stderr, "unknown helper job", job)
		return 9
	}
	return 0
}

// testServeCommand is this binary as `hangdog serve`.
func testServeCommand() (string, []string, error) {
	return os.Args[0], []string{"-test.run=^$"}, nil
}

// home is a home for process tests, with the environment its helpers
// inherit (Ensure starts its server with this process's environment).
func processHome(t *testing.T, address string) (string, *watch.Store) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HANGDOG_HOME", home)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HANGDOG_SERVE_ADDRESS", address)
	t.Setenv(helperEnv, "serve") // what Ensure's child runs
	reg, err := bgtasks.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	store, err := watch.OpenStore(reg)
	if err != nil {
		t.Fatal(err)
	}
	old := ServeCommand
	ServeCommand = testServeCommand
	t.Cleanup(func() { ServeCommand = old })
	t.Cleanup(func() { stopServer(t, home) })
	return home, store
}

// stopServer ends a receiver a test left (by the pid in its address file).
func stopServer(t *testing.T, home string) {
	a, err := readAddress(filepath.Join(home, serveDir))
	if err != nil {
		return
	}
	if p, err := os.FindProcess(a.PID); err == nil && p.Signal(syscall.SIGTERM) == nil {
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) && syscall.Kill(a.PID, 0) == nil {
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// helperCmd is this binary doing job in the current environment.
func helperCmd(job, arg string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+job, helperArgEnv+"="+arg)
	return cmd
}

// freePort is a port nothing listens on now.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

func waitUntil(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

func countLines(s, sub string) int { return strings.Count(s, sub) }
