//go:build linux

package sampler

import "strings"

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
	for i, p := range tree.Procs {
		if tree.ForegroundPGID != 0 && p.PGID != tree.ForegroundPGID {
			continue
		}
		if p.State != 'S' && p.State != 'D' {
			continue
		}
		rec := s.cur[p.PID]
		by := ""
		switch {
		case p.Syscall >= 0:
			for _, w := range notes[i].waits {
				if s.term.is(w, rec.ttyNr) {
					by = "syscall"
					break
				}
			}
		case p.Syscall == SyscallUnknown:
			switch {
			case ttyReadWchan(p.Wchan) && s.term.is(p.Fd0, rec.ttyNr):
				by = "wchan"
			case notes[i].fdsUnread && tree.TTYMode == TTYSecret && s.term.known() && rec.ttyNr == s.term.dev:
				by = "termios"
			}
		}
		if by != "" {
			tree.ReadingTTY, tree.ReadingTTYPID, tree.ReadingTTYComm, tree.ReadingTTYBy = true, p.PID, p.Comm, by
			tree.ReadingTTYTimed, tree.ReadingTTYTimeout, tree.ReadingTTYSyscall = p.WaitTimed, p.WaitTimeout, p.SyscallName
			tree.Forwarding = forwards(notes[i].waits)
			return
		}
	}
}

// forwards reports whether one blocking call waits on a socket as well as
// the terminal: the shape of ssh, telnet, nc and `docker exec -it`, which
// read keys only to send them on.
func forwards(waits []string) bool {
	if len(waits) < 2 {
		return false
	}
	for _, w := range waits {
		if strings.HasPrefix(w, "socket:[") {
			return true
		}
	}
	return false
}
