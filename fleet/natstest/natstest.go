// Package natstest starts real NATS servers with JetStream in the calling
// process, on 127.0.0.1 with random ports, each node in its own store
// directory: one node, or a cluster whose nodes can be killed and
// restarted (same ports, same store). It is for tests and for
// scripts/fleet-local.sh; nothing hangdog ships links it.
package natstest

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// readyWithin bounds the wait for a node to listen and for the cluster to
// elect its JetStream meta leader.
const readyWithin = 30 * time.Second

// Cluster is a set of running NATS servers (a single node is a cluster of
// one, without routes).
type Cluster struct {
	Name      string
	nodes     []*node
	configure []func(*server.Options)
	mu        sync.Mutex
}

type node struct {
	name        string
	storeDir    string
	clientPort  int
	clusterPort int
	srv         *server.Server // nil while killed
}

// freePort asks the kernel for a free port on 127.0.0.1. Another process
// could take it before the server binds it; Start then fails and says so.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Start starts n nodes with JetStream, their stores under dir (one
// subdirectory each), and waits until they answer and, for n > 1, have a
// JetStream meta leader. Each configure function may change every node's
// options (authorization, say) before it starts. Stop ends them.
func Start(n int, dir string, configure ...func(*server.Options)) (*Cluster, error) {
	if n < 1 {
		return nil, errors.New("natstest: a cluster needs a node")
	}
	c := &Cluster{Name: "hangdog-test", configure: configure}
	for i := range n {
		cp, err := freePort()
		if err != nil {
			return nil, fmt.Errorf("natstest: a free port: %w", err)
		}
		rp := 0
		if n > 1 {
			if rp, err = freePort(); err != nil {
				return nil, fmt.Errorf("natstest: a free port: %w", err)
			}
		}
		nd := &node{name: fmt.Sprintf("n%d", i+1), storeDir: filepath.Join(dir, fmt.Sprintf("n%d", i+1)), clientPort: cp, clusterPort: rp}
		if err := os.MkdirAll(nd.storeDir, 0o700); err != nil {
			return nil, fmt.Errorf("natstest: store directory: %w", err)
		}
		c.nodes = append(c.nodes, nd)
	}
	for i := range c.nodes {
		if err := c.start(i); err != nil {
			c.Stop()
			return nil, err
		}
	}
	if err := c.WaitReady(); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

// StartT is Start for a test: the stores are in the test's temporary
// directory and the nodes stop when it ends.
func StartT(t testing.TB, n int, configure ...func(*server.Options)) *Cluster {
	t.Helper()
	c, err := Start(n, t.TempDir(), configure...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	return c
}

func (c *Cluster) options(i int) *server.Options {
	nd := c.nodes[i]
	o := &server.Options{
		ServerName: nd.name,
		Host:       "127.0.0.1",
		Port:       nd.clientPort,
		JetStream:  true,
		StoreDir:   nd.storeDir,
		NoLog:      true,
		NoSigs:     true,
		// Small limits: a test's cluster shares the machine.
		JetStreamMaxMemory: 64 << 20,
		JetStreamMaxStore:  1 << 30,
	}
	if len(c.nodes) > 1 {
		o.Cluster = server.ClusterOpts{Name: c.Name, Host: "127.0.0.1", Port: nd.clusterPort}
		for j, other := range c.nodes {
			if j != i {
				o.Routes = append(o.Routes, &url.URL{Scheme: "nats", Host: fmt.Sprintf("127.0.0.1:%d", other.clusterPort)})
			}
		}
	}
	for _, f := range c.configure {
		f(o)
	}
	return o
}

func (c *Cluster) start(i int) error {
	nd := c.nodes[i]
	srv, err := server.NewServer(c.options(i))
	if err != nil {
		return fmt.Errorf("natstest: node %s: %w", nd.name, err)
	}
	srv.Start()
	if !srv.ReadyForConnections(readyWithin) {
		srv.Shutdown()
		return fmt.Errorf("natstest: node %s did not listen on 127.0.0.1:%d within %s (port taken?)", nd.name, nd.clientPort, readyWithin)
	}
	c.mu.Lock()
	nd.srv = srv
	c.mu.Unlock()
	return nil
}

// WaitReady waits until every running node answers and, in a cluster, a
// JetStream meta leader is elected and every running node is current.
func (c *Cluster) WaitReady() error {
	deadline := time.Now().Add(readyWithin)
	for time.Now().Before(deadline) {
		if c.ready() {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("natstest: the cluster has no JetStream leader after %s", readyWithin)
}

func (c *Cluster) ready() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.nodes) == 1 {
		return c.nodes[0].srv != nil && c.nodes[0].srv.JetStreamEnabled()
	}
	leader := false
	for _, nd := range c.nodes {
		if nd.srv == nil {
			continue
		}
		if !nd.srv.JetStreamIsCurrent() {
			return false
		}
		leader = leader || nd.srv.JetStreamIsLeader()
	}
	return leader
}

// URLs lists every node's client URL, comma-separated (the form
// events.sink takes), killed nodes included.
func (c *Cluster) URLs() string {
	var urls []string
	for _, nd := range c.nodes {
		urls = append(urls, c.URL(nd))
	}
	return strings.Join(urls, ",")
}

// URL is one node's client URL.
func (c *Cluster) URL(nd *node) string { return fmt.Sprintf("nats://127.0.0.1:%d", nd.clientPort) }

// NodeURL is node i's client URL.
func (c *Cluster) NodeURL(i int) string { return c.URL(c.nodes[i]) }

// Index is the node named name (a server name, as a stream's cluster
// info gives its leader: n1, n2, …), -1 for none.
func (c *Cluster) Index(name string) int {
	for i, nd := range c.nodes {
		if nd.name == name {
			return i
		}
	}
	return -1
}

// Size is the number of nodes, running or killed.
func (c *Cluster) Size() int { return len(c.nodes) }

// Server is node i's server, nil while it is killed.
func (c *Cluster) Server(i int) *server.Server {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nodes[i].srv
}

// Kill stops node i at once (its clients see the connection drop); its
// store stays for Restart.
func (c *Cluster) Kill(i int) {
	c.mu.Lock()
	srv := c.nodes[i].srv
	c.nodes[i].srv = nil
	c.mu.Unlock()
	if srv != nil {
		srv.Shutdown()
		srv.WaitForShutdown()
	}
}

// Restart starts a killed node i again on its ports with its store, and
// waits for the cluster to be ready.
func (c *Cluster) Restart(i int) error {
	if c.Server(i) != nil {
		return fmt.Errorf("natstest: node %s is running", c.nodes[i].name)
	}
	if err := c.start(i); err != nil {
		return err
	}
	return c.WaitReady()
}

// Stop ends every node.
func (c *Cluster) Stop() {
	for i := range c.nodes {
		c.Kill(i)
	}
}
