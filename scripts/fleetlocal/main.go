// Command fleetlocal starts a local NATS JetStream cluster for trying
// hangdog's fleet (docs/fleet.md): real NATS servers in this process, on
// 127.0.0.1 with random ports, built from the same helper the tests use
// (fleet/natstest). scripts/fleet-local.sh runs it.
//
// It prints the URLs to set as events.sink, then reads commands on stdin
// ("kill N", "restart N", "quit") so failover can be tried by hand, and
// stops every node on quit, end of input or a signal.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/hangdog/hangdog/fleet/natstest"
)

func main() {
	nodes := flag.Int("nodes", 3, "how many nodes (1 for a single server)")
	dir := flag.String("dir", "", "where the nodes keep their stores (default: a new temporary directory, removed at the end)")
	flag.Parse()
	store := *dir
	if store == "" {
		d, err := os.MkdirTemp("", "hangdog-fleet-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "fleetlocal:", err)
			os.Exit(1)
		}
		defer os.RemoveAll(d)
		store = d
	}
	c, err := natstest.Start(*nodes, store)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fleetlocal:", err)
		os.Exit(1)
	}
	defer c.Stop()
	fmt.Printf("a %d-node NATS JetStream cluster is up (stores in %s)\n", c.Size(), store)
	for i := range c.Size() {
		fmt.Printf("  node %d: %s\n", i+1, c.NodeURL(i))
	}
	fmt.Printf("in each sandbox's shell:\n  export HANGDOG_EVENTS_SINK=%s\n", c.URLs())
	fmt.Printf("commands: kill N, restart N, quit\n")

	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	for {
		select {
		case <-sig:
			return
		case line, ok := <-lines:
			if !ok {
				return
			}
			f := strings.Fields(line)
			if len(f) == 0 {
				continue
			}
			if f[0] == "quit" {
				return
			}
			n := 0
			if len(f) == 2 {
				n, _ = strconv.Atoi(f[1])
			}
			if n < 1 || n > c.Size() || (f[0] != "kill" && f[0] != "restart") {
				fmt.Printf("commands: kill N, restart N (N from 1 to %d), quit\n", c.Size())
				continue
			}
			if f[0] == "kill" {
				c.Kill(n - 1)
				fmt.Printf("node %d killed\n", n)
				continue
			}
			if err := c.Restart(n - 1); err != nil {
				fmt.Println("restart:", err)
				continue
			}
			fmt.Printf("node %d is back\n", n)
		}
	}
}
