//go:build linux

package sampler

import (
	"strings"
	"time"
)

// socketHolder is one process holding one socket fd.
type socketHolder struct {
	pid   int
	inode uint64
}

// socketSeen is one socket inode of the tree, decoded once found in a table.
type socketSeen struct {
	sock   Socket
	found  bool
	listed bool
}

// maxTCPTable bounds the bytes read of one /proc/PID/net/tcp table.
const maxTCPTable = 32 << 20

// findSockets decodes the TCP sockets the tree holds. The tables are only
// read when some process holds a socket fd, and from a process of the tree,
// so they are those of the task's network namespace.
func (s *Sampler) findSockets(tree *Tree) {
	if len(s.holders) == 0 {
		return
	}
	for _, h := range s.holders {
		if s.sockets[h.inode] == nil {
			s.sockets[h.inode] = &socketSeen{}
		}
	}
	wanted := func(inode uint64) bool {
		seen := s.sockets[inode]
		return seen != nil && !seen.found
	}
	found := func(inode uint64, sock Socket) {
		seen := s.sockets[inode]
		seen.sock, seen.found = sock, true
	}
	owner := s.holders[0].pid
	dir, err := s.files.openPID(owner)
	if err != nil {
		return // the owner vanished: its sockets went with it
	}
	for _, table := range []string{"net/tcp", "net/tcp6"} {
		if b, err := s.files.read(dir, table, -1, maxTCPTable, true); err == nil {
			eachTCPSocket(b, wanted, found)
		}
	}
	closeFd(dir)

	for _, h := range s.holders {
		seen := s.sockets[h.inode]
		rec, ok := s.cur[h.pid]
		if !seen.found || !ok || rec.idx < 0 {
			continue
		}
		p := &tree.Procs[rec.idx]
		p.Sockets = append(p.Sockets, seen.sock)
		if seen.listed {
			continue
		}
		seen.listed = true
		switch seen.sock.State {
		case "LISTEN":
			tree.Listening = append(tree.Listening, seen.sock)
		case "SYN_SENT":
			tree.Connecting = append(tree.Connecting, seen.sock)
		case "ESTABLISHED":
			tree.Established = append(tree.Established, seen.sock)
		}
	}
	s.findPeerSilence(tree)
}

// findPeerSilence sets tree.PeerSilent from the established sockets' tcp_info
// (tcpdiag_linux.go).
func (s *Sampler) findPeerSilence(tree *Tree) {
	if len(tree.Established) == 0 {
		return
	}
	inodes := map[uint64]bool{}
	for _, h := range s.holders {
		if seen := s.sockets[h.inode]; seen != nil && seen.found && seen.sock.State == "ESTABLISHED" {
			inodes[h.inode] = true
		}
	}
	quiet := tcpQuietness(inodes)
	if len(quiet) < len(inodes) {
		return // some socket unread: say nothing
	}
	silent := time.Duration(-1)
	for _, q := range quiet {
		if !q.owesAnswer() {
			return
		}
		if silent < 0 || q.lastRecv < silent {
			silent = q.lastRecv
		}
	}
	tree.PeerSilent = max(silent, 0)
}

// findTTYReader decides whether a foreground process is blocked reading the
// task's terminal, and on what evidence.
func (s *Sampler) findTTYReader(tree *Tree, notes []evidence) {
	if !s.term.known() || tree.ForegroundPGID == 0 {
		// Without the master, the controlling terminal and its foreground
		// group come from /proc/PID/stat (tty_nr, tpgid).
		for _, p := range tree.Procs {
			rec := s.cur[p.PID]
			if rec.ttyNr <= 0 {
				continue
			}
			if !s.term.known() && s.tty == nil {
				s.term = terminalFromTTYNr(rec.ttyNr)
			}
			if tree.ForegroundPGID == 0 && rec.tpgid > 0 {
				tree.ForegroundPGID = rec.tpgid
			}
			break
		}
	}
	// Terminals inside the terminal (script, ssh -t, docker exec -t): what
	// their programs read, a forwarder passes on from the task's terminal.
	var nested map[string]bool
	for i := range tree.Procs {
		if det := notes[i].det; det != nil {
			for _, n := range det.nested {
				if nested == nil {
					nested = map[string]bool{}
				}
				nested[n] = true
			}
		}
	}
	reads := func(w string, ttyNr int) bool {
		if s.term.is(w, ttyNr) {
			return true
		}
		if w == "/dev/tty" {
			w = terminalFromTTYNr(ttyNr).path
		}
		return nested[w]
	}
	// Principle (issue 23, cause 4): any process of the tree blocked reading
	// the task's terminal waits for input, whatever its thread (Go reads
	// stdin on a thread of its own), group or session (a prompt of a
	// program started with setsid, su). Only the wchan and termios
	// fallbacks, which cannot name the fd, keep to the foreground group.
	// Principle (cause 5): a forwarder of a nested terminal is not the one
	// waiting; the program inside it is judged, so a reader that is no
	// forwarder is preferred to one that is.
	found := -1
	foundBy, foundWait := "", ""
	for i, p := range tree.Procs {
		if p.State != 'S' && p.State != 'D' {
			continue
		}
		fg := tree.ForegroundPGID == 0 || p.PGID == tree.ForegroundPGID
		rec := s.cur[p.PID]
		by, wait := "", ""
		switch {
		case p.Syscall >= 0:
			for _, w := range notes[i].waits {
				if reads(w, rec.ttyNr) {
					by, wait = "syscall", w
					break
				}
			}
			if by == "" && notes[i].det != nil {
				for _, w := range notes[i].det.threadWaits {
					if reads(w, rec.ttyNr) {
						by, wait = "syscall of another thread", w
						break
					}
				}
			}
		case p.Syscall == SyscallUnknown && fg:
			switch {
			case ttyReadWchan(p.Wchan) && s.term.is(p.Fd0, rec.ttyNr):
				by = "wchan"
			case notes[i].fdsUnread && tree.TTYMode == TTYSecret && s.term.known() && rec.ttyNr == s.term.dev:
				by = "termios"
			}
		}
		if by == "" {
			continue
		}
		if found < 0 || (tree.Forwarding && !forwards(notes[i].waits)) {
			found, foundBy, foundWait = i, by, wait
			tree.Forwarding = forwards(notes[i].waits)
		}
		if !tree.Forwarding {
			break
		}
	}
	if found < 0 {
		return
	}
	p := tree.Procs[found]
	tree.ReadingTTY, tree.ReadingTTYPID, tree.ReadingTTYComm, tree.ReadingTTYBy = true, p.PID, p.Comm, foundBy
	tree.ReadingTTYTimed, tree.ReadingTTYTimeout, tree.ReadingTTYSyscall = p.WaitTimed, p.WaitTimeout, p.SyscallName
	if nested[foundWait] && !tree.Forwarding {
		// The program inside reads its own terminal: its mode is what says
		// a line, a secret or keys.
		if m, ok := terminalMode(foundWait); ok {
			tree.TTYMode = m
		}
	}
}

// forwards reports whether one blocking call waits on a socket or a PTY
// master as well as the terminal: the shape of ssh, telnet, nc,
// `docker exec -it` and script, which read keys only to send them on.
func forwards(waits []string) bool {
	if len(waits) < 2 {
		return false
	}
	for _, w := range waits {
		if strings.HasPrefix(w, "socket:[") || w == ptmxTarget {
			return true
		}
	}
	return false
}
