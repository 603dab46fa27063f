// Package procusage measures what a task's process tree costs — CPU time
// and resident memory summed over every live process below its supervisor —
// for listings (`bg ls`, the shell's /bg). It walks each tree down from its
// root through the kernel's lists of children (the whole process table,
// read once per listing, where there are none) and reads each process
// through gopsutil; the supervisor's own sampler, on the hot path, keeps its
// own /proc reader.
package procusage

import (
	"context"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/shirou/gopsutil/v4/process"
)

// Usage is a tree's cost now.
type Usage struct {
	Procs int           // live processes in the tree, the root excluded
	CPU   time.Duration // user + system time of those processes
	RSS   uint64        // their resident memory, bytes
}

// Table is one reading of the process table: who is whose child.
type Table struct {
	// children is the whole table, where the kernel cannot say a
	// process's children itself; nil where it can (childrenFiles).
	children map[int32][]int32
}

// Read reads the process table once. Where /proc/PID/task/TID/children
// exists (Linux, as the supervisor's sampler also assumes), nothing is read
// up front: a tree is walked from its root, which costs what the tree
// holds, not what the machine runs.
func Read(ctx context.Context) (*Table, error) {
	if childrenFiles() {
		return &Table{}, nil
	}
	return readWhole(ctx)
}

// readWhole reads every process's parent.
func readWhole(ctx context.Context) (*Table, error) {
	procs, err := process.ProcessesWithContext(ctx)
	if err != nil {
		return nil, err
	}
	t := &Table{children: make(map[int32][]int32, len(procs))}
	for _, p := range procs {
		ppid, err := p.PpidWithContext(ctx)
		if err != nil {
			continue // ended since the table was listed
		}
		t.children[ppid] = append(t.children[ppid], p.Pid)
	}
	return t, nil
}

// Tree sums the cost of every live descendant of root (a task's
// supervisor), not counting root itself: the supervisor is hangdog's, the
// rest is the task's. A process that ends while it is read is skipped.
func (t *Table) Tree(ctx context.Context, root int) Usage {
	var u Usage
	queue := t.childrenOf(int32(root))
	seen := map[int32]bool{int32(root): true}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		if seen[pid] {
			continue
		}
		seen[pid] = true
		queue = append(queue, t.childrenOf(pid)...)
		p, err := process.NewProcessWithContext(ctx, pid)
		if err != nil {
			continue
		}
		times, err := p.TimesWithContext(ctx)
		if err != nil {
			continue
		}
		mem, err := p.MemoryInfoWithContext(ctx)
		if err != nil {
			continue
		}
		u.Procs++
		u.CPU += time.Duration((times.User + times.System) * float64(time.Second))
		u.RSS += mem.RSS
	}
	return u
}

// childrenOf is pid's children: from the table when it was read whole,
// else from what the kernel lists for each of pid's threads.
func (t *Table) childrenOf(pid int32) []int32 {
	if t.children != nil {
		return append([]int32(nil), t.children[pid]...)
	}
	dir := "/proc/" + strconv.Itoa(int(pid)) + "/task"
	tids, err := os.ReadDir(dir)
	if err != nil {
		return nil // ended meanwhile
	}
	var out []int32
	for _, tid := range tids {
		b, err := os.ReadFile(dir + "/" + tid.Name() + "/children")
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if c, err := strconv.ParseInt(f, 10, 32); err == nil {
				out = append(out, int32(c))
			}
		}
	}
	return out
}

// childrenFiles reports whether the kernel lists a thread's children
// (CONFIG_PROC_CHILDREN), by looking for this process's own list.
func childrenFiles() bool {
	pid := strconv.Itoa(os.Getpid())
	_, err := os.Stat("/proc/" + pid + "/task/" + pid + "/children")
	return err == nil
}

// Trees reads what each tree costs, by the key its root is given under
// (a task id → its supervisor's pid), reading the process table once, and
// not at all for no roots. A failed read gives no costs: a listing without
// them is still a listing.
func Trees(ctx context.Context, roots map[string]int) map[string]Usage {
	usage := map[string]Usage{}
	if len(roots) == 0 {
		return usage
	}
	table, err := Read(ctx)
	if err != nil {
		return usage
	}
	for key, root := range roots {
		usage[key] = table.Tree(ctx, root)
	}
	return usage
}

// BytesText is a size in the units ps and top use: 980K, 12.3M, 1.2G.
func BytesText(n uint64) string {
	switch {
	case n < 1<<20:
		return strconv.FormatUint(n>>10, 10) + "K"
	case n < 1<<30:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + "M"
	default:
		return strconv.FormatFloat(float64(n)/(1<<30), 'f', 1, 64) + "G"
	}
}
