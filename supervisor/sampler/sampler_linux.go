//go:build linux

package sampler

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Sampler samples one task's process tree. It keeps the previous sample to
// turn counters into deltas, so one Sampler serves one task and is used from
// one goroutine.
type Sampler struct {
	root    int
	tty     *os.File
	files   procFiles
	created time.Time

	prevTime  time.Time
	prev, cur map[int]record
	term      terminal // the PTY slave, once known

	// Scratch reused by every sample.
	queue   []int
	threads []int
	links   []fdLink
	waited  []int
	debts   []reapDebt
	holders []socketHolder
	sockets map[uint64]*socketSeen

	// scanned: parent -> children from a full /proc scan, set while a
	// sample walks the tree again because the children lists lost a live
	// member (complete_linux.go); nil otherwise.
	scanned  map[int][]int
	scanning bool
	scanPIDs []int
	// listsOmit: PIDs the children lists are made to leave out, for the
	// tests of what the kernel does only by rare timing. nil outside tests.
	listsOmit map[int]bool
	scanOmit  bool // the scan leaves out listsOmit too
}

// record is what one sample remembers of a process for the next.
type record struct {
	start             uint64
	ppid              int
	ticks, childTicks uint64 // utime+stime, cutime+cstime
	io                ioCounters
	zombie            bool
	idx               int // in the sample's Procs; -1 for zombies
	ttyNr, tpgid      int
	state             byte
	runs              uint64 // times scheduled onto a CPU (schedstat pcount)
	runsKnown         bool
	det               *details
}

// evidence is what the sampler learns about a process for the tree-level
// verdicts but does not hand out.
type evidence struct {
	waits       []string // targets of the fds a blocked read/poll waits on
	fdsUnread   bool
	syscallKind syscallKind
	det         *details
	ownTicks    float64 // delta, prorated for processes first seen mid-life
	childTicks  float64
	io          ioCounters
}

// New makes a sampler for the descendants of rootPID (the supervisor, which
// is not sampled itself). tty is the PTY master, or nil when there is none;
// the sampler only reads its state and never changes its blocking mode.
func New(rootPID int, tty *os.File) *Sampler {
	return &Sampler{
		root:    rootPID,
		tty:     tty,
		files:   newProcFiles(),
		created: time.Now(),
		prev:    map[int]record{},
		cur:     map[int]record{},
		sockets: map[uint64]*socketSeen{},
	}
}

// Sample reads the tree once. It fails only when the root itself cannot be
// read; processes that vanish or turn zombie mid-sample are left out, and
// anything else unreadable clears Tree.Complete.
func (s *Sampler) Sample() (Tree, error) {
	now := time.Now()
	since := s.prevTime
	if since.IsZero() {
		since = s.created
	}
	tree := Tree{Time: now, Window: now.Sub(since), Complete: true, First: s.prevTime.IsZero()}

	if s.tty != nil {
		pty, err := readPTY(s.tty, s.term)
		if err == nil {
			s.term = pty.term
		}
		tree.ForegroundPGID, tree.TTYMode = pty.fg, pty.mode
	}

	procs, notes, err := s.walkAll(&tree)
	if err != nil {
		return Tree{}, fmt.Errorf("sample process tree of PID %d: %w", s.root, err)
	}
	tree.Procs = procs
	s.account(&tree, notes)
	s.findSockets(&tree)
	s.findTTYReader(&tree, notes)

	s.prev, s.cur = s.cur, s.prev
	s.prevTime = now
	return tree, nil
}

// walkAll walks the tree through the children lists and, when that walk
// lost a member of the previous sample that still runs in the tree, again
// through a full scan of /proc (complete_linux.go). A member neither walk
// finds makes the sample incomplete.
func (s *Sampler) walkAll(tree *Tree) ([]Proc, []evidence, error) {
	complete := tree.Complete
	procs, notes, err := s.walk(tree)
	if err != nil || s.lostMember() == 0 {
		return procs, notes, err
	}
	if err := s.scanParents(); err != nil {
		tree.Complete = false
		return procs, notes, nil
	}
	s.scanning = true
	defer func() { s.scanning = false }()
	tree.Complete = complete
	procs, notes, err = s.walk(tree)
	if err == nil && s.lostMember() != 0 {
		tree.Complete = false
	}
	return procs, notes, err
}

// walk visits the root's descendants breadth first, parents before children.
func (s *Sampler) walk(tree *Tree) ([]Proc, []evidence, error) {
	clear(s.cur)
	clear(s.sockets)
	s.holders = s.holders[:0]
	rootDir, err := s.files.openPID(s.root)
	if err != nil {
		return nil, nil, fmt.Errorf("open /proc/%d: %w", s.root, err)
	}
	s.queue, err = s.appendChildren(s.queue[:0], rootDir, s.root, 0)
	unix.Close(rootDir)
	if err != nil {
		return nil, nil, fmt.Errorf("list children of %d: %w", s.root, err)
	}
	var procs []Proc
	var notes []evidence
	for i := 0; i < len(s.queue); i++ {
		pid := s.queue[i]
		if _, seen := s.cur[pid]; seen || pid == s.root {
			continue
		}
		proc, note, ok := s.readProc(pid, tree)
		if !ok {
			continue
		}
		rec := s.cur[pid]
		rec.idx = len(procs)
		s.cur[pid] = rec
		if parent, ok := s.cur[proc.PPID]; ok && parent.idx >= 0 {
			procs[parent.idx].Children++
		}
		procs = append(procs, proc)
		notes = append(notes, note)
	}
	return procs, notes, nil
}

// readProc reads one process. ok is false when it is gone, a zombie (only
// its counters are kept, for accounting) or no longer in the tree.
func (s *Sampler) readProc(pid int, tree *Tree) (proc Proc, note evidence, ok bool) {
	f := &s.files
	dir, err := f.openPID(pid)
	if err != nil {
		tree.Complete = tree.Complete && gone(err)
		return proc, note, false
	}
	defer unix.Close(dir)
	b, err := f.read(dir, "stat", -1, 4096, false)
	if err != nil {
		tree.Complete = tree.Complete && gone(err)
		return proc, note, false
	}
	st, err := parseStat(b)
	if err != nil {
		tree.Complete = false
		return proc, note, false
	}
	// A PID whose parent is outside the tree was reused, or its process was
	// reparented out of the tree (no subreaper): either way not ours.
	if _, inTree := s.cur[st.ppid]; !inTree && st.ppid != s.root {
		return proc, note, false
	}
	comm := string(st.comm) // st.comm aliases the buffer the next read reuses
	rec := record{
		start: st.start, ppid: st.ppid, idx: -1, ttyNr: st.ttyNr, tpgid: st.tpgid,
		ticks: st.utime + st.stime, childTicks: st.cutime + st.cstime, state: st.state,
	}
	prev, seen := s.prev[pid]
	seen = seen && prev.start == st.start
	if seen {
		rec.io = prev.io // kept when io turns unreadable, so its delta is 0
	}
	if st.state == 'Z' || st.state == 'X' {
		if b, err := f.read(dir, "io", -1, 4096, false); err == nil {
			rec.io = parseIO(b)
		}
		rec.zombie = true
		s.cur[pid] = rec
		return proc, note, false
	}

	// A single-threaded process that has not been on a CPU since the
	// previous sample cannot have changed its fds, syscall, argv or I/O:
	// reuse what was read then. In an idle tree this skips most reads.
	// (Read from the second sight on: at the first there is nothing to
	// compare with.)
	if seen && st.threads == 1 && st.state != 'R' {
		rec.runs, rec.runsKnown = f.readRuns(dir)
	}
	var det *details
	if seen && prev.det != nil && rec.runsKnown && prev.runsKnown && prev.runs == rec.runs && prev.state == st.state {
		det = prev.det
	} else {
		det, err = s.readDetails(pid, dir, st.state, st.threads)
		if err != nil {
			return proc, note, false // gone mid-read
		}
		if det.ioOK {
			rec.io = det.io
		}
	}
	rec.det = det

	proc = Proc{
		PID: pid, PPID: st.ppid, PGID: st.pgrp, SID: st.session,
		Comm: comm, State: st.state, Threads: st.threads, StartTicks: st.start,
		Cmdline: det.cmdline, Wchan: det.wchan, Fd0: det.fd0, ReadFd: det.readFd,
		Syscall: det.syscall, SyscallName: det.syscallName, SyscallArg0: det.arg0,
		WaitTimed: det.timed, WaitTimeout: det.timeout, Argv: det.argv,
	}
	if len(det.unread) > 0 {
		proc.Unread = append([]string(nil), det.unread...)
		tree.Complete = false
	}
	note.waits, note.syscallKind, note.fdsUnread = det.waits, det.kind, det.fdsUnread
	note.det = det
	for _, inode := range det.sockets {
		s.holders = append(s.holders, socketHolder{pid: pid, inode: inode})
	}

	s.queue, err = s.appendChildren(s.queue, dir, pid, st.threads)
	if err != nil && !gone(err) {
		tree.Complete = false
	}
	s.cur[pid] = rec
	return proc, note, true
}

// details is what a process shows about itself beyond its counters. It can
// only change while the process runs.
type details struct {
	cmdline, wchan, fd0, readFd string
	syscall                     int
	syscallName                 string
	arg0                        uint64
	kind                        syscallKind
	waits                       []string // targets of the fds a read/poll waits on
	sockets                     []uint64 // inodes of its socket fds
	unread                      []string
	fdsUnread                   bool
	io                          ioCounters
	ioOK                        bool
	argv                        []string
	timed                       bool // the main thread's call has a timeout
	timeout                     time.Duration
	absolute                    bool
	threadTimers                []Timer // the other threads' timed waits
	// threadReads: the fds other threads are blocked reading (read(2) on
	// one fd), resolved to their targets in threadWaits: a runtime reads
	// stdin on a thread of its own (Go) while the main one sits elsewhere.
	threadReads []threadRead
	threadWaits []string
	// nested: the PTYs whose masters (/dev/ptmx) this process holds, by
	// their slave's path: it runs a terminal inside the terminal (script,
	// ssh -t, docker exec -t).
	nested []string
}

// threadRead is one thread blocked reading one fd.
type threadRead struct{ tid, fd int }

// readDetails reads argv, the blocking syscall and what it waits on, and the
// fds. err is set only when the process vanished; anything unreadable is
// listed in unread.
func (s *Sampler) readDetails(pid, dir int, state byte, threads int) (*details, error) {
	f := &s.files
	det := &details{syscall: SyscallRunning}
	b, err := f.read(dir, "io", -1, 4096, false)
	switch {
	case err == nil:
		det.io, det.ioOK = parseIO(b), true
	case gone(err):
		return nil, err
	default:
		det.unread = append(det.unread, "io")
	}
	if b, err := f.read(dir, "cmdline", -1, 4096, false); err == nil {
		det.cmdline = cmdline(b)
		det.argv = argv(b)
	} else if gone(err) {
		return nil, err
	} else {
		det.unread = append(det.unread, "cmdline")
	}

	var sc syscallState
	named := false
	if state != 'R' {
		b, err := f.read(dir, "syscall", -1, 4096, false)
		parsed := false
		if err == nil {
			sc, parsed = parseSyscall(b)
		} else if gone(err) {
			return nil, err
		}
		if parsed {
			det.syscall = sc.nr
			if sc.nr >= 0 {
				det.arg0 = sc.args[0]
				if info, ok := lookupSyscall(sc.nr); ok {
					det.syscallName, det.kind, named = info.name, info.kind, true
					det.timeout, det.absolute, det.timed = f.timedWait(pid, info.name, sc)
				}
			}
		} else {
			// Another user's process (sudo) or a kernel without
			// CONFIG_HAVE_ARCH_TRACEHOOK: wchan is all there is.
			det.syscall = SyscallUnknown
			det.unread = append(det.unread, "syscall")
		}
		// A named syscall and its fd say more than wchan; read wchan when
		// they say nothing, or in D state where it names what the disk
		// or network wait is.
		if !named || state == 'D' {
			if b, err := f.read(dir, "wchan", -1, 4096, false); err == nil && !bytes.Equal(b, []byte("0")) {
				det.wchan = string(b)
			}
		}
	}

	// The other threads: a runtime's event loop or sleeping worker is
	// rarely the main thread.
	if threads > 1 {
		det.threadTimers, det.threadReads = s.threadTimers(pid, dir, nil, nil)
	}

	s.links, err = f.scanFds(dir, s.links)
	if err != nil {
		if gone(err) {
			return nil, err
		}
		det.unread = append(det.unread, "fds")
		det.fdsUnread = true
	}
	if t := f.target(s.links, 0); t != nil {
		det.fd0 = string(t)
	}
	for _, l := range s.links {
		target := f.links[l.off : l.off+l.n]
		if inode, ok := socketInode(target); ok {
			det.sockets = append(det.sockets, inode)
		} else if string(target) == ptmxTarget {
			if n, ok := f.ptmxIndex(dir, l.fd); ok {
				det.nested = append(det.nested, "/dev/pts/"+strconv.Itoa(n))
			}
		}
	}
	for _, r := range det.threadReads {
		if t := f.target(s.links, r.fd); t != nil {
			det.threadWaits = append(det.threadWaits, string(t))
		}
	}
	if det.kind != kindOther && det.kind != kindTimer && det.syscall >= 0 {
		s.waited = f.waitedFds(pid, dir, det.kind, sc, s.waited)
		for _, fd := range s.waited {
			if t := f.target(s.links, fd); t != nil {
				det.waits = append(det.waits, string(t))
				if !det.timed && string(t) == timerfdTarget {
					det.timeout, det.timed = f.timerfdLeft(dir, fd)
				}
			}
		}
		// Of several fds, name the terminal if it is one of them.
		for _, w := range det.waits {
			if strings.HasPrefix(w, "/dev/pts/") || w == "/dev/tty" {
				det.readFd = w
				break
			}
			if det.readFd == "" {
				det.readFd = w
			}
		}
	}
	return det, nil
}

// appendChildren appends the children of every thread of pid. Children
// belong to the thread that forked them, so a multi-threaded parent (the
// supervisor itself) needs all its threads read; threads <= 0 means unknown.
func (s *Sampler) appendChildren(queue []int, dir, pid, threads int) ([]int, error) {
	if s.scanning {
		return append(queue, s.scanned[pid]...), nil
	}
	s.threads = s.threads[:0]
	if threads == 1 {
		s.threads = append(s.threads, pid)
	} else {
		taskDir, err := openat(dir, s.files.cpath("task", -1), unix.O_DIRECTORY)
		if err != nil {
			return queue, err
		}
		err = s.files.eachNumericDirent(taskDir, func(tid int) bool {
			s.threads = append(s.threads, tid)
			return true
		})
		unix.Close(taskDir)
		if err != nil {
			return queue, err
		}
	}
	var firstErr error
	for _, tid := range s.threads {
		b, err := s.files.readChildren(dir, tid)
		if err != nil {
			// A thread that exited mid-walk is normal.
			if firstErr == nil && !gone(err) {
				firstErr = err
			}
			continue
		}
		for _, field := range bytes.Fields(b) {
			if child, ok := atoi(field); ok && !s.listsOmit[child] {
				queue = append(queue, child)
			}
		}
	}
	return queue, firstErr
}

// argv splits the NUL-separated argv.
func argv(b []byte) []string {
	b = bytes.TrimRight(b, "\x00")
	if len(b) == 0 {
		return nil
	}
	return strings.Split(string(b), "\x00")
}

// cmdline joins the NUL-separated argv.
func cmdline(b []byte) string {
	return strings.ReplaceAll(string(bytes.TrimRight(b, "\x00")), "\x00", " ")
}
