//go:build linux

package sampler

import (
	"context"
	"fmt"
	"testing"

	"github.com/shirou/gopsutil/v4/process"
)

// BenchmarkSamplePeerGopsutil is BenchmarkSample's peer, measured in the same
// run: gopsutil (the library internal/procusage uses off the hot path) finding
// the same 5-process tree below the same root and reading what a sample's
// counters come from for each process — CPU times, I/O counters, state. It
// finds the tree the only way gopsutil can, from every process's parent
// (process.Processes and Ppid), so its cost grows with the unrelated
// processes; it reads none of what the sampler adds (syscalls, timers,
// sockets, the terminal). The ratio of the two cpu-ns/op is the figure.
func BenchmarkSamplePeerGopsutil(b *testing.B) {
	for _, unrelated := range []int{0, 5000} {
		b.Run(fmt.Sprintf("unrelated=%d", unrelated), func(b *testing.B) {
			if unrelated > 0 {
				startSleepers(b, unrelated)
			}
			task := startSupervisedTree(b, fiveProcesses, 5)
			ctx := context.Background()
			start := cpuTime()
			for b.Loop() {
				if n := gopsutilSample(ctx, b, int32(task.root)); n != 5 {
					b.Fatalf("gopsutil found %d processes below the root, want 5", n)
				}
			}
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
		})
	}
}

// gopsutilSample reads the tree below root with gopsutil and returns how
// many processes it holds.
func gopsutilSample(ctx context.Context, b *testing.B, root int32) int {
	all, err := process.ProcessesWithContext(ctx)
	if err != nil {
		b.Fatal(err)
	}
	children := map[int32][]*process.Process{}
	for _, p := range all {
		if ppid, err := p.PpidWithContext(ctx); err == nil {
			children[ppid] = append(children[ppid], p)
		}
	}
	n := 0
	queue := []int32{root}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, p := range children[pid] {
			n++
			queue = append(queue, p.Pid)
			_, _ = p.TimesWithContext(ctx)
			_, _ = p.IOCountersWithContext(ctx)
			_, _ = p.StatusWithContext(ctx)
		}
	}
	return n
}
