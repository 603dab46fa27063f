package peerproc

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Supported: the lookups work here.
const Supported = true

// Lookup finds the client end of the TCP connection from client to
// server: the socket in /proc/net/tcp{,6} whose local address is client
// and remote address server, and the processes of this user that hold it
// (a scan of /proc/*/fd, this process included; the processes of other
// users are not readable and not searched).
func Lookup(client, server netip.AddrPort) (*Conn, error) {
	c := &Conn{}
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		found, err := scanTCP(f, client, server, c)
		if err != nil {
			return nil, err
		}
		if found {
			c.Found = true
			break
		}
	}
	if !c.Found || c.Inode == 0 || c.UID != uint32(os.Getuid()) {
		return c, nil
	}
	want := "socket:[" + strconv.FormatUint(c.Inode, 10) + "]"
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("list processes: %w", err)
	}
	uid := uint32(os.Getuid())
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		dir := "/proc/" + e.Name()
		fi, err := os.Stat(dir)
		if err != nil {
			continue // gone meanwhile
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); !ok || st.Uid != uid {
			// /proc/PID of a process that is not dumpable belongs to root
			// even when it runs as this user: such a process might hold
			// the socket too.
			if ok && st.Uid == 0 && statusUID(pid) == uid {
				c.Unreadable = append(c.Unreadable, pid)
			}
			continue
		}
		fds, err := os.ReadDir(dir + "/fd")
		if err != nil {
			if errors.Is(err, os.ErrPermission) {
				c.Unreadable = append(c.Unreadable, pid)
			}
			continue
		}
		for _, fd := range fds {
			if l, err := os.Readlink(dir + "/fd/" + fd.Name()); err == nil && l == want {
				c.Holders = append(c.Holders, pid)
				break
			}
		}
	}
	return c, nil
}

// statusUID is the real uid in /proc/PID/status (readable for every
// process), or MaxUint32.
func statusUID(pid int) uint32 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return ^uint32(0)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "Uid:"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				if n, err := strconv.ParseUint(f[0], 10, 32); err == nil {
					return uint32(n)
				}
			}
		}
	}
	return ^uint32(0)
}

// scanTCP looks for the socket client→server in one /proc/net/tcp file.
func scanTCP(path string, client, server netip.AddrPort, c *Conn) (bool, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil // no IPv6
	}
	if err != nil {
		return false, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	sc.Scan() // header
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 10 {
			continue
		}
		local, err1 := parseHexAddr(fields[1])
		remote, err2 := parseHexAddr(fields[2])
		if err1 != nil || err2 != nil || !same(local, client) || !same(remote, server) {
			continue
		}
		uid, err1 := strconv.ParseUint(fields[7], 10, 32)
		inode, err2 := strconv.ParseUint(fields[9], 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		c.UID, c.Inode = uint32(uid), inode
		return true, nil
	}
	return false, sc.Err()
}

func same(a, b netip.AddrPort) bool {
	return a.Port() == b.Port() && a.Addr().Unmap() == b.Addr().Unmap()
}

// parseHexAddr reads "0100007F:1F90": the address as the kernel prints
// it, each 32-bit word of the network-order bytes as a native integer,
// then the port in hex.
func parseHexAddr(s string) (netip.AddrPort, error) {
	h, p, ok := strings.Cut(s, ":")
	if !ok || (len(h) != 8 && len(h) != 32) {
		return netip.AddrPort{}, fmt.Errorf("bad address %q", s)
	}
	raw, err := hex.DecodeString(h)
	if err != nil {
		return netip.AddrPort{}, err
	}
	for i := 0; i < len(raw); i += 4 {
		w := binary.BigEndian.Uint32(raw[i:])
		binary.NativeEndian.PutUint32(raw[i:], w)
	}
	port, err := strconv.ParseUint(p, 16, 16)
	if err != nil {
		return netip.AddrPort{}, err
	}
	addr, _ := netip.AddrFromSlice(raw)
	return netip.AddrPortFrom(addr, uint16(port)), nil
}

// Stat describes pid; Exe and TaskID stay empty when not readable.
func Stat(pid int) (*Proc, error) {
	dir := "/proc/" + strconv.Itoa(pid)
	b, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return nil, fmt.Errorf("process %d: %w", pid, err)
	}
	// "pid (comm) state ppid …": comm may hold spaces and parentheses.
	open, closing := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || closing < open {
		return nil, fmt.Errorf("process %d: unreadable stat", pid)
	}
	rest := strings.Fields(string(b[closing+1:]))
	if len(rest) < 20 {
		return nil, fmt.Errorf("process %d: short stat", pid)
	}
	ppid, _ := strconv.Atoi(rest[1])
	start, _ := strconv.ParseUint(rest[19], 10, 64)
	p := &Proc{PID: pid, PPID: ppid, Comm: string(b[open+1 : closing]), Start: start, TaskMark: taskMarked(dir)}
	if exe, err := os.Readlink(dir + "/exe"); err == nil {
		p.Exe = strings.TrimSuffix(exe, " (deleted)")
	}
	if env, err := os.ReadFile(dir + "/environ"); err == nil {
		for kv := range bytes.SplitSeq(env, []byte{0}) {
			if v, ok := bytes.CutPrefix(kv, []byte("HANGDOG_TASK_ID=")); ok {
				p.TaskID = string(v)
			}
		}
	}
	return p, nil
}

// Ancestry is pid and its ancestors, nearest first, up to (not including)
// pid 1 or the first that cannot be read.
func Ancestry(pid int) []*Proc {
	var out []*Proc
	for pid > 1 && len(out) < 256 {
		p, err := Stat(pid)
		if err != nil {
			break
		}
		out = append(out, p)
		pid = p.PPID
	}
	return out
}

// ExeBase is the executable's base name, else the comm.
func (p *Proc) ExeBase() string {
	if p.Exe != "" {
		return filepath.Base(p.Exe)
	}
	return p.Comm
}

// Args is pid's command line as /proc shows it (a process may rewrite it:
// npm shows its title there); nil when unreadable.
func Args(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
}

// BeyondLaunchers is pid, or, when pid only launches another program, the
// nearest of its ancestors that does not: a client that starts hangdog's
// MCP server as `npx -y hangdog mcp` is its grandparent's grandparent (npm
// exec, its `sh -c`, the hangdog npm package's node launcher between).
func BeyondLaunchers(pid int) (*Proc, error) {
	p, err := Stat(pid)
	// Bounded, as Ancestry is; a launcher chain is a few processes long.
	for i := 0; err == nil && i < 16 && p.PPID > 1 && launcher(p, Args(p.PID)); i++ {
		p, err = Stat(p.PPID)
	}
	return p, err
}

// launcher reports whether p only starts another program: a shell run
// with -c, npm exec or npx (npm sets its title, "npm exec …", as its
// command line), or node running the hangdog npm package's launcher
// (packaging/npm/hangdog.js, by its path or its node_modules/.bin link).
func launcher(p *Proc, args []string) bool {
	if len(args) == 0 {
		return false
	}
	exe := p.ExeBase()
	switch exe {
	case "sh", "dash", "bash":
		return len(args) > 1 && args[1] == "-c"
	}
	if !strings.HasPrefix(exe, "node") {
		return false
	}
	if strings.HasPrefix(args[0], "npm exec ") || strings.HasPrefix(args[0], "npx ") {
		return true
	}
	return len(args) > 1 && (strings.HasSuffix(args[1], "/hangdog/bin/hangdog.js") || strings.HasSuffix(args[1], "/node_modules/.bin/hangdog"))
}

// The task mark is a hard limit of 0 on RLIMIT_LOCKS. A process without
// CAP_SYS_RESOURCE can lower a hard limit but never raise it, a child
// inherits it through fork and exec, and /proc/PID/limits shows it to
// every process. Escaping a task by `env -i`, setsid, a double fork or
// killing the supervisor keeps it. The limit itself is inert: Linux has
// not counted file locks against it since 2.4.25, so a marked process
// locks and leases files as before; a program that tries to raise it
// (`ulimit -x unlimited`) is refused. It is 0 because nothing lower
// exists: a marked process cannot step to another value that looks
// unmarked. (A system that set it to 0 for everyone would make every
// process look marked: refused, never let through.)

// MarkTask marks this process, and so everything it starts from now on,
// as a task's. The supervisor calls it before it starts the command.
func MarkTask() error {
	lim := unix.Rlimit{Cur: 0, Max: 0}
	if err := unix.Prlimit(0, unix.RLIMIT_LOCKS, &lim, nil); err != nil {
		return fmt.Errorf("mark the task's processes (hard RLIMIT_LOCKS 0): %w", err)
	}
	return nil
}

// taskMarked reads the hard "Max file locks" of /proc/PID/limits (world
// readable, even for a process that is not dumpable).
func taskMarked(dir string) bool {
	b, err := os.ReadFile(dir + "/limits")
	if err != nil {
		return false
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "Max file locks"); ok {
			f := strings.Fields(rest) // soft, hard, units
			return len(f) >= 2 && f[1] == "0"
		}
	}
	return false
}
