//go:build linux

package sampler

import "golang.org/x/sys/unix"

// A sample must be complete, or it is not an observation. The walk finds the
// tree through /proc/PID/task/TID/children, which proc(5) documents as
// possibly inaccurate while the tree changes: the kernel lists a thread's
// children by position, and a child moves to another thread's list when the
// thread that forked it exits. A process the walk misses would read as
// "nothing is running there" (no timer, no blocked read), which is the one
// thing a sample must never say by mistake. So every sample is checked
// against the previous one: a member that is still alive, with the same
// start time and a parent that is still ours, must be in it. When one is
// not, the tree is found again by a full scan of /proc (parent links from
// every /proc/PID/stat), and if even that cannot place it the sample is
// marked incomplete. The check reads nothing while the previous sample's
// members are all found, so the cost stays that of the tree's own size.

// lostMember returns a process of the previous sample that this one missed
// although it still runs in the tree, or 0.
func (s *Sampler) lostMember() int {
	for pid, prev := range s.prev {
		if !prev.zombie && s.stillOurs(pid, prev, 0) {
			if cur, ok := s.cur[pid]; !ok || cur.start != prev.start {
				return pid
			}
		}
	}
	return 0
}

// stillOurs reports whether the previous sample's member pid still runs (the
// same start time) with a parent that is the root, a process of this
// sample, or a member of the last one that is itself still ours (lost with
// it). A process reparented outside the tree is not ours any more.
func (s *Sampler) stillOurs(pid int, prev record, depth int) bool {
	if cur, ok := s.cur[pid]; ok && cur.start == prev.start {
		return true
	}
	st, ok := s.statOf(pid)
	if !ok || st.start != prev.start || st.state == 'Z' || st.state == 'X' {
		return false // it ended, or its PID was reused
	}
	if _, inTree := s.cur[st.ppid]; inTree || st.ppid == s.root {
		return true
	}
	parent, wasOurs := s.prev[st.ppid]
	return wasOurs && depth < maxLostDepth && s.stillOurs(st.ppid, parent, depth+1)
}

// maxLostDepth bounds how far up a chain of lost members stillOurs looks.
const maxLostDepth = 64

// statOf reads /proc/PID/stat. Its comm aliases the read buffer.
func (s *Sampler) statOf(pid int) (statFields, bool) {
	dir, err := s.files.openPID(pid)
	if err != nil {
		return statFields{}, false
	}
	defer unix.Close(dir)
	b, err := s.files.read(dir, "stat", -1, 4096, false)
	if err != nil {
		return statFields{}, false
	}
	st, err := parseStat(b)
	return st, err == nil
}

// scanParents reads the parent of every process on the machine into
// s.scanned (parent -> children), for a walk that must not depend on the
// children lists. It costs one stat read per process on the machine, so it
// runs only when the lists were caught missing a member.
func (s *Sampler) scanParents() error {
	if s.scanned == nil {
		s.scanned = map[int][]int{}
	}
	for ppid, kids := range s.scanned {
		s.scanned[ppid] = kids[:0]
	}
	proc, err := openat(unix.AT_FDCWD, s.files.cpath("/proc", -1), unix.O_DIRECTORY)
	if err != nil {
		return err
	}
	defer unix.Close(proc)
	s.scanPIDs = s.scanPIDs[:0]
	if err := s.files.eachNumericDirent(proc, func(pid int) bool {
		s.scanPIDs = append(s.scanPIDs, pid)
		return true
	}); err != nil {
		return err
	}
	for _, pid := range s.scanPIDs {
		if s.scanOmit && s.listsOmit[pid] {
			continue
		}
		if st, ok := s.statOf(pid); ok {
			s.scanned[st.ppid] = append(s.scanned[st.ppid], pid)
		}
	}
	return nil
}
