// Package peerproc finds which local processes sent a TCP connection, and
// describes a process and its ancestors, from /proc (Linux only; elsewhere
// Supported is false and every lookup says it cannot tell). It also owns
// the task mark: what a task's supervisor puts on itself before it starts
// the command (MarkTask), which every process the command starts inherits
// and none can take off, so that a process is known as a task's even after
// it left the task's environment, session and process tree (Proc.TaskMark).
// The approval page uses it to refuse requests made by hangdog's own
// processes, by any task's, and by the agent that asked.
package peerproc

import (
	"net"
	"net/netip"
)

// Proc is one process as /proc describes it.
type Proc struct {
	PID   int
	PPID  int
	Comm  string // the kernel's name, at most 15 bytes
	Exe   string // the executable's path; empty when unreadable
	Start uint64 // start time in clock ticks since boot: with the pid, an identity that survives pid reuse
	// TaskID is the hangdog task whose command this process runs under
	// ($HANGDOG_TASK_ID in its environment); empty when none or unreadable.
	TaskID string
	// TaskMark: the process carries the task mark (see MarkTask), so it
	// descends from a task's command whatever its environment and parent
	// say now.
	TaskMark bool
}

// Conn is what was found of a connection's client end.
type Conn struct {
	// Found: the client's socket is on this machine (in /proc/net/tcp{,6}).
	Found bool
	// UID owns the socket; Inode 0 is a socket no process holds any more
	// (closed by its sender, still finishing).
	UID   uint32
	Inode uint64
	// Holders hold the socket; Unreadable are processes of this user whose
	// descriptors could not be read (not dumpable), any of which might.
	Holders    []int
	Unreadable []int
}

// Local reports whether addr is this machine's (loopback or an address
// of one of its interfaces): a connection from it comes from a local
// process, which the peer lookup must then find.
func Local(addr netip.Addr) bool {
	addr = addr.Unmap()
	if addr.IsLoopback() || addr.IsUnspecified() {
		return true
	}
	return interfaceAddr(addr)
}

func interfaceAddr(addr netip.Addr) bool {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			if ip, ok := netip.AddrFromSlice(n.IP); ok && ip.Unmap() == addr {
				return true
			}
		}
	}
	return false
}
