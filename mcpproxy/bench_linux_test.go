//go:build linux

package mcpproxy

import (
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/hangdog/hangdog/internal/testbin"
)

// overheadCalls is how many calls of the quick tool each side makes.
const overheadCalls = 200

var (
	benchBinOnce sync.Once
	benchBin     string
	benchBinErr  error
)

// BenchmarkRelayOverhead measures what the proxy adds to a call: the quick
// tool called overheadCalls times directly and through `hangdog mcp-proxy`
// (the built binary, watching under abort-turn, as a user runs it), the two
// interleaved call by call so that the machine's load falls on both alike.
// It reports each side's median call and the difference of the medians.
//
//	go test -run '^$' -bench RelayOverhead -benchtime 1x ./mcpproxy
func BenchmarkRelayOverhead(b *testing.B) {
	benchBinOnce.Do(func() {
		dir, err := os.MkdirTemp("", "hdproxybench")
		if err != nil {
			benchBinErr = err
			return
		}
		benchBin, benchBinErr = testbin.Build(dir)
	})
	if benchBinErr != nil {
		b.Fatal(benchBinErr)
	}
	for b.Loop() {
		dc := benchClient(b, exec.Command(stubBin))
		proxy := exec.Command(benchBin, "mcp-proxy", "--name", "stub", "--", stubBin)
		proxy.Env = append(os.Environ(), "HANGDOG_HOME="+b.TempDir(), "HANGDOG_WATCHDOG_OTHERTOOLS=abort-turn")
		pc := benchClient(b, proxy)
		dc.handshake()
		pc.handshake()
		var direct, proxied []time.Duration
		for i := range overheadCalls {
			id := i + 10
			direct = append(direct, timeCall(dc, id))
			proxied = append(proxied, timeCall(pc, id))
		}
		dm, pm := testbin.Median(direct), testbin.Median(proxied)
		b.ReportMetric(float64(dm.Microseconds()), "direct-µs/call")
		b.ReportMetric(float64(pm.Microseconds()), "proxied-µs/call")
		b.ReportMetric(float64((pm - dm).Microseconds()), "overhead-µs/call")
		dc.close()
		pc.close()
	}
}

func benchClient(b *testing.B, cmd *exec.Cmd) *client {
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		in.Close()
		cmd.Wait()
	})
	return newClient(b, in, out)
}

func timeCall(c *client, id int) time.Duration {
	start := time.Now()
	c.send(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"quick","arguments":{"text":"x"}}}`, id)
	c.response(strconv.Itoa(id), 10*time.Second)
	return time.Since(start)
}
