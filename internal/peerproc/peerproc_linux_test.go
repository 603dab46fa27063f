package peerproc

import (
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A connection from a child process is found, with the child as its
// holder and this process among its ancestors.
func TestLookupFindsTheSendingProcess(t *testing.T) {
	for _, network := range []string{"tcp4", "tcp6"} {
		t.Run(network, func(t *testing.T) {
			host := "127.0.0.1"
			if network == "tcp6" {
				host = "::1"
			}
			ln, err := net.Listen(network, net.JoinHostPort(host, "0"))
			if err != nil {
				t.Skipf("no %s loopback: %v", network, err)
			}
			defer ln.Close()
			port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
			child := exec.Command("bash", "-c", "exec 3<>/dev/tcp/"+host+"/"+port+"; sleep 30")
			if err := child.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = child.Process.Kill(); _ = child.Wait() }()
			_ = ln.(*net.TCPListener).SetDeadline(time.Now().Add(20 * time.Second))
			conn, err := ln.Accept()
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			client := netip.MustParseAddrPort(conn.RemoteAddr().String())
			server := netip.MustParseAddrPort(conn.LocalAddr().String())
			c, err := Lookup(client, server)
			if err != nil {
				t.Fatal(err)
			}
			if !c.Found || c.Inode == 0 || c.UID != uint32(os.Getuid()) || !slices.Contains(c.Holders, child.Process.Pid) {
				t.Fatalf("lookup of %v→%v = %+v, want held by the child %d", client, server, c, child.Process.Pid)
			}
			anc := Ancestry(child.Process.Pid)
			if len(anc) < 2 || anc[0].PID != child.Process.Pid || anc[1].PID != os.Getpid() || (anc[0].ExeBase() != "bash" && anc[0].ExeBase() != "sleep") {
				t.Fatalf("ancestry %+v", *anc[0])
			}
			if !Local(client.Addr()) {
				t.Errorf("%v is not local", client.Addr())
			}
		})
	}
	if Local(netip.MustParseAddr("192.0.2.7")) {
		t.Error("a documentation address is local")
	}
	// An address nobody connects from is not found.
	c, err := Lookup(netip.MustParseAddrPort("192.0.2.7:4444"), netip.MustParseAddrPort("127.0.0.1:1"))
	if err != nil || c.Found {
		t.Fatalf("lookup of nothing: %+v %v", c, err)
	}
}

func TestStatReadsTaskIDAndStart(t *testing.T) {
	child := exec.Command("sleep", "30")
	child.Env = append(os.Environ(), "HANGDOG_TASK_ID=t42")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = child.Process.Kill(); _ = child.Wait() }()
	// Until the child has exec'd sleep, /proc shows the test's own
	// environment (the fork's copy), without the variable.
	var p *Proc
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		var err error
		if p, err = Stat(child.Process.Pid); err != nil {
			t.Fatal(err)
		}
		if p.Comm == "sleep" || time.Now().After(deadline) {
			break
		}
	}
	if p.TaskID != "t42" || p.Start == 0 || p.PPID != os.Getpid() || p.Comm != "sleep" {
		t.Fatalf("stat %+v", p)
	}
}

// An MCP client starting `npx -y hangdog mcp` is above npm exec (titled
// "npm exec …"), its `sh -c` and the hangdog npm package's node launcher:
// BeyondLaunchers, from the launcher, finds the client — here a plain node
// program, which is not taken for a launcher.
func TestBeyondLaunchersFindsTheClientAboveNpx(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the launcher chain under test is npm's")
	}
	dir := t.TempDir()
	bin := dir + "/node_modules/.bin"
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	pidFile := dir + "/launcher.pid"
	// The launcher starts a command that records its parent (the launcher)
	// and waits.
	launcherJS := `require("child_process").spawnSync("sh", ["-c", "echo $PPID > ` + pidFile + `.tmp && mv ` + pidFile + `.tmp ` + pidFile + `; sleep 30"], {stdio: "inherit"})`
	if err := os.WriteFile(bin+"/hangdog", []byte(launcherJS), 0o755); err != nil {
		t.Fatal(err)
	}
	// npm exec sets its title, then runs the bin through sh -c.
	npmJS := `process.title = "npm exec hangdog mcp"; require("child_process").spawnSync("sh", ["-c", "node ` + bin + `/hangdog mcp"], {stdio: "inherit"})`
	clientJS := `require("child_process").spawnSync(process.execPath, ["-e", ` + strconv.Quote(npmJS) + `], {stdio: "inherit"})`
	client := exec.Command(node, "-e", clientJS)
	client.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := client.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = syscall.Kill(-client.Process.Pid, syscall.SIGKILL); _ = client.Wait() }()
	var launcherPID int
	for deadline := time.Now().Add(20 * time.Second); launcherPID == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the launcher chain did not start within 20 s")
		}
		if b, err := os.ReadFile(pidFile); err == nil {
			launcherPID, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
	}
	chain := []string{}
	for _, p := range Ancestry(launcherPID) {
		if p.PID == client.Process.Pid {
			break
		}
		chain = append(chain, fmt.Sprintf("%d %s %.80q", p.PID, p.ExeBase(), Args(p.PID)))
	}
	t.Logf("the launchers, nearest first:\n%s", strings.Join(chain, "\n"))
	p, err := BeyondLaunchers(launcherPID)
	if err != nil {
		t.Fatal(err)
	}
	if p.PID != client.Process.Pid {
		t.Errorf("BeyondLaunchers(%d) = %d (%s), want the client %d", launcherPID, p.PID, p.ExeBase(), client.Process.Pid)
	}
	// A process that launches nothing is itself.
	if p, err := BeyondLaunchers(os.Getpid()); err != nil || p.PID != os.Getpid() {
		t.Errorf("BeyondLaunchers(this test) = %v, %v; want itself", p, err)
	}
}

// markedChildEnv makes this test binary a child that marks itself and
// then runs argv: MarkTask as the supervisor calls it.
const markedChildEnv = "PEERPROC_TEST_MARK_THEN_EXEC"

func init() {
	if os.Getenv(markedChildEnv) == "" {
		return
	}
	if err := MarkTask(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	argv := strings.Fields(os.Getenv(markedChildEnv))
	path, _ := exec.LookPath(argv[0])
	fmt.Fprintln(os.Stderr, syscall.Exec(path, argv, []string{"PATH=" + os.Getenv("PATH")}))
	os.Exit(3)
}

// What MarkTask marks stays marked through exec, `env -i` and setsid, and
// its grandchild cannot raise the limit to look unmarked; an unmarked
// process is not taken for marked. (As root the raise succeeds: the mark
// binds processes without CAP_SYS_RESOURCE.)
func TestTaskMarkSurvivesAnEscape(t *testing.T) {
	if me, err := Stat(os.Getpid()); err != nil || me.TaskMark {
		t.Skipf("this test runs inside a hangdog task (%v): every process it starts is marked", err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	raise := "ulimit -Hx unlimited 2>/dev/null; ulimit -x unlimited 2>/dev/null"
	if os.Geteuid() == 0 {
		raise = "true"
	}
	script := filepath.Join(t.TempDir(), "escape.sh")
	if err := os.WriteFile(script, []byte(raise+"; exec sleep 30\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	child := exec.Command(self, "-test.run=^$")
	child.Env = append(os.Environ(), markedChildEnv+"=env -i setsid bash "+script)
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = child.Process.Kill(); _ = child.Wait() }()
	var p *Proc
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if p, err = Stat(child.Process.Pid); err == nil && p.Comm == "sleep" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the marked child did not get to sleep: %+v %v", p, err)
		}
	}
	if !p.TaskMark || p.TaskID != "" {
		t.Fatalf("a marked process after env -i and setsid: %+v, want TaskMark and no task id", p)
	}
	plain := exec.Command("sleep", "30")
	if err := plain.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = plain.Process.Kill(); _ = plain.Wait() }()
	if q, err := Stat(plain.Process.Pid); err != nil || q.TaskMark {
		t.Fatalf("an unmarked process: %+v %v", q, err)
	}
}
