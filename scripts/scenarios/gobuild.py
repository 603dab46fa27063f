#!/usr/bin/env python3
"""Builds one of the Go programs of heldout2.yaml into the current directory
(`python3 gobuild.py NAME` → ./NAME), so the held-out corpus has a runtime of
its own (Go's scheduler, netpoller and test framework) without a Go package
in the repository's tree. Test programs are built with `go test -c`, so they
carry the testing framework's alarm (-test.timeout, 10 min by default).
The build cache is shared across cases (GOCACHE, default /tmp/hd-bench-gocache)."""
import os
import subprocess
import sys
import tempfile

PROGRAMS = {
    # A test deadlocked on a channel. `go test` runs its binary with
    # -test.timeout=10m0s, whose alarm is a pending timer, so the runtime
    # cannot call it a deadlock; run directly the binary has no alarm and
    # the runtime would end it at once, so the test arms the same far timer
    # itself (a -test.timeout in argv still ends it earlier).
    "chandeadlock": ("test", """package x
import ("testing"; "time")
func TestWaitsForever(t *testing.T) {
	time.AfterFunc(10*time.Minute, func() { panic("test timed out after 10m0s") })
	<-make(chan int)
}
"""),
    # A test blocked reading a connection whose peer never answers.
    "silentpeer": ("test", """package x
import ("net"; "os"; "strings"; "testing")
func TestFetch(t *testing.T) {
	b, _ := os.ReadFile("port.txt")
	c, err := net.Dial("tcp", "127.0.0.1:"+strings.TrimSpace(string(b)))
	if err != nil { t.Fatal(err) }
	c.Write([]byte("GET / HTTP/1.0\\r\\n\\r\\n"))
	buf := make([]byte, 512)
	c.Read(buf)
}
"""),
    # A prompt read by Go: the runtime reads stdin on a thread of its own
    # while its other threads sit in timers (a ticker keeps them awake).
    "goprompt": ("main", """package main
import ("bufio"; "fmt"; "os"; "time")
func main() {
	go func() { for range time.Tick(time.Second) {} }()
	fmt.Print("Cluster name: ")
	s, _ := bufio.NewReader(os.Stdin).ReadString('\\n')
	fmt.Println("using", s)
}
"""),
    # A read of stdin with a deadline elsewhere: the answer defaults after
    # 12 s, read in one goroutine while another waits on the timer.
    "goreaddeadline": ("main", """package main
import ("bufio"; "fmt"; "os"; "time")
func main() {
	fmt.Print("Continue? [Y/n] (default in 12s) ")
	ch := make(chan string)
	go func() { s, _ := bufio.NewReader(os.Stdin).ReadString('\\n'); ch <- s }()
	select {
	case s := <-ch: fmt.Println("answer", s)
	case <-time.After(12 * time.Second): fmt.Println("\\nno answer, continuing")
	}
}
"""),
    # An in-process retry loop: connect, refused, sleep 1 s, again, forever.
    "goretry": ("main", """package main
import ("net"; "time")
func main() {
	for {
		if c, err := net.Dial("tcp", "127.0.0.1:1"); err == nil { c.Close(); return }
		time.Sleep(time.Second)
	}
}
"""),
    # heldout3.yaml: a server-like program that says it is ready, then
    # waits for a signal that never comes (no timer, no output).
    "goreadywait": ("main", """package main
import ("fmt"; "os"; "os/signal"; "syscall")
func main() {
	fmt.Println("serving on 127.0.0.1:0, Ctrl-C to stop")
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGTERM, syscall.SIGINT)
	<-c
}
"""),
    # heldout3.yaml: a spinner redrawn in place every 100 ms over nothing.
    "gospinner": ("main", """package main
import ("fmt"; "time")
func main() {
	frames := []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}
	for i := 0; ; i++ {
		fmt.Printf("\\r%s resolving dependencies", frames[i%len(frames)])
		time.Sleep(100 * time.Millisecond)
	}
}
"""),
    # heldout3.yaml: one line, 9 s of quiet in a Go timer, then it ends.
    "gowarmup": ("main", """package main
import ("fmt"; "time")
func main() {
	fmt.Println("warming the cache")
	time.Sleep(9 * time.Second)
	fmt.Println("cache warm")
}
"""),
}


def main():
    name = sys.argv[1]
    kind, src = PROGRAMS[name]
    out = os.path.abspath(name)
    env = dict(os.environ, GOCACHE=os.environ.get("GOCACHE") or "/tmp/hd-bench-gocache",
               GOTOOLCHAIN="local", GOFLAGS="", GO111MODULE="on", CGO_ENABLED="0")
    env.setdefault("GOPATH", "/tmp/hd-bench-gopath")
    with tempfile.TemporaryDirectory() as d:
        fn = "x_test.go" if kind == "test" else "main.go"
        with open(os.path.join(d, fn), "w") as f:
            f.write(src)
        with open(os.path.join(d, "go.mod"), "w") as f:
            f.write("module x\n\ngo 1.22\n")
        cmd = ["go", "test", "-c", "-o", out] if kind == "test" else ["go", "build", "-o", out]
        subprocess.run(cmd, cwd=d, env=env, check=True)


if __name__ == "__main__":
    main()
