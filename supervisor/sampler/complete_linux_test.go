//go:build linux

package sampler

import (
	"fmt"
	"os"
	"testing"
	"time"
)

// TestChurningSiblingsHideNoMember samples a tree while its shell forks and
// reaps short-lived children as fast as it can, beside members that live a
// second each. /proc/PID/task/TID/children is a list the kernel walks by
// position (proc(5): it "may be inaccurate" while things change): a sibling
// reaped in the middle of a read shifts the list, and a live member listed
// after it is skipped. A member alive both before and after a sample must be
// in it, or the sample must say it is incomplete: a sample that silently
// loses a process is read as "nothing is running there".
func TestChurningSiblingsHideNoMember(t *testing.T) {
	task := startOnPTY(t, `while :; do ( : ) & sleep 4 & ( : ) & sleep 4 & ( : ) & sleep 4 & ( : ) & done`)
	s := New(os.Getpid(), task.master)
	type member struct {
		pid   int
		start uint64
	}
	var prev []member
	misses, samples, most := 0, 0, 0
	deadline := time.Now().Add(4 * time.Second)
	for time.Now().Before(deadline) && misses == 0 {
		tree, err := s.Sample()
		if err != nil {
			t.Fatalf("Sample: %v", err)
		}
		samples++
		seen := map[int]uint64{}
		var cur []member
		for _, p := range tree.Procs {
			seen[p.PID] = p.StartTicks
			if p.PPID == task.pid() && p.Cmdline == "sleep 4" {
				cur = append(cur, member{p.PID, p.StartTicks})
			}
		}
		for _, m := range prev {
			if start, ok := seen[m.pid]; ok && start == m.start {
				continue
			}
			if !alive(m.pid, m.start) || !tree.Complete {
				continue // gone, or the sample said it has holes
			}
			misses++
			t.Errorf("sample %d: sleep 1 (PID %d) alive before and after it, missing from a sample marked complete (%d processes)",
				samples, m.pid, len(tree.Procs))
		}
		prev = cur
		most = max(most, len(cur))
	}
	t.Logf("%d samples, %d misses, up to %d members", samples, misses, most)
}

// alive reports whether pid is still the process that started at start.
func alive(pid int, start uint64) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	st, err := parseStat(b)
	return err == nil && st.start == start && st.state != 'Z' && st.state != 'X'
}

// TestALostMemberIsFoundByAFullScan: when the children lists leave out a
// process of the tree that the last sample saw and that still runs (what
// proc(5)'s "may be inaccurate" allows, here forced, since the kernel does
// it only by rare timing), the sample finds it through /proc all the same,
// with its timer, and stays complete; it is never an empty "nothing runs".
func TestALostMemberIsFoundByAFullScan(t *testing.T) {
	task := startOnPTY(t, "exec sleep 311")
	s := New(os.Getpid(), task.master)
	waitFor(t, s, "sleep 311", func(tr Tree) bool {
		p, ok := findProc(tr, byPID(task.pid()))
		return ok && p.Cmdline == "sleep 311" && tr.TimerSleep
	})
	s.listsOmit = map[int]bool{task.pid(): true}
	tree, err := s.Sample()
	if err != nil {
		t.Fatal(err)
	}
	p, ok := findProc(tree, byPID(task.pid()))
	if !ok || !tree.Complete || !tree.TimerSleep || p.New {
		t.Errorf("sleep 311 left out of its children list: found %v (new %v), complete %v, timer %v; want found, not new, complete, timer\n%s",
			ok, p.New, tree.Complete, tree.TimerSleep, dump(tree))
	}
}

// TestAMemberNoWalkFindsMakesTheSampleIncomplete: a live member that neither
// the children lists nor the scan place in the tree (here its parent, the
// root, is hidden from the scan too) leaves the sample incomplete, so it is
// never read as idle.
func TestAMemberNoWalkFindsMakesTheSampleIncomplete(t *testing.T) {
	task := startOnPTY(t, "exec sleep 312")
	s := New(os.Getpid(), task.master)
	waitFor(t, s, "sleep 312", func(tr Tree) bool {
		p, ok := findProc(tr, byPID(task.pid()))
		return ok && p.Cmdline == "sleep 312"
	})
	s.listsOmit = map[int]bool{task.pid(): true}
	s.scanOmit = true
	tree, err := s.Sample()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := findProc(tree, byPID(task.pid())); ok || tree.Complete {
		t.Errorf("sleep 312 hidden from both walks: found %v, complete %v; want not found and incomplete\n%s", ok, tree.Complete, dump(tree))
	}
}

// TestMembersReparentedOutAreNotLost: a process whose parent left the tree
// (its own parent ended and it was reparented outside) takes its children
// with it; they are no longer ours, and the sample that no longer shows them
// is complete.
func TestMembersReparentedOutAreNotLost(t *testing.T) {
	task := startOnPTY(t, "( sh -c 'sleep 314 & exec sleep 315' & read x ); exec sleep 316")
	s := New(os.Getpid(), task.master)
	waitFor(t, s, "sleep 314 under sleep 315, the subshell reading", func(tr Tree) bool {
		_, child := findProc(tr, byCmdline("sleep 314"))
		_, parent := findProc(tr, byCmdline("sleep 315"))
		return child && parent && tr.ReadingTTY
	})
	if _, err := task.master.Write([]byte("\n")); err != nil {
		t.Fatal(err)
	}
	tree := waitFor(t, s, "bash alone, as sleep 316", func(tr Tree) bool {
		p, ok := findProc(tr, byPID(task.pid()))
		return ok && p.Cmdline == "sleep 316" && len(tr.Procs) == 1
	})
	if !tree.Complete {
		t.Errorf("a sample without the processes that left the tree is incomplete\n%s", dump(tree))
	}
}
