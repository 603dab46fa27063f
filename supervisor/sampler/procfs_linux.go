//go:build linux

package sampler

import (
	"bytes"
	"errors"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"
)

// procFiles reads /proc files through raw openat/read/close on reused
// buffers: a sample makes a few dozen such reads per process, and going
// through os.File (fstat, finalizers, per-call allocations) would double
// their cost.
type procFiles struct {
	buf     []byte // file contents; valid until the next read
	path    []byte // NUL-terminated path scratch
	dirents []byte
	links   []byte // readlink targets of one process's fds, back to back
}

func newProcFiles() procFiles {
	return procFiles{
		buf:     make([]byte, 4096),
		path:    make([]byte, 0, 64),
		dirents: make([]byte, 8192),
		links:   make([]byte, 0, 4096),
	}
}

// gone reports whether err means the process no longer exists, which is
// normal mid-sample and never a failure.
func gone(err error) bool {
	return errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ESRCH)
}

// cpath returns "name/num" ("name" when num < 0, "num" when name is empty)
// as a NUL-terminated string in the path scratch.
func (p *procFiles) cpath(name string, num int) *byte {
	p.path = append(p.path[:0], name...)
	if num >= 0 {
		if name != "" {
			p.path = append(p.path, '/')
		}
		p.path = strconv.AppendInt(p.path, int64(num), 10)
	}
	p.path = append(p.path, 0)
	return &p.path[0]
}

func openat(dirfd int, path *byte, flags int) (int, error) {
	for {
		fd, _, errno := unix.Syscall6(unix.SYS_OPENAT, uintptr(dirfd), uintptr(unsafe.Pointer(path)),
			uintptr(flags|unix.O_RDONLY|unix.O_CLOEXEC), 0, 0, 0)
		if errno == unix.EINTR {
			continue
		}
		if errno != 0 {
			return -1, errno
		}
		return int(fd), nil
	}
}

func readlinkat(dirfd int, path *byte, buf []byte) (int, error) {
	n, _, errno := unix.Syscall6(unix.SYS_READLINKAT, uintptr(dirfd), uintptr(unsafe.Pointer(path)),
		uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), 0, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}

// openPID opens /proc/PID as a directory. Reading through this fd keeps every
// file of one sample about the same process even if the PID is reused.
func (p *procFiles) openPID(pid int) (int, error) {
	return openat(unix.AT_FDCWD, p.cpath("/proc", pid), unix.O_DIRECTORY)
}

// read reads dirfd/name (plus /num when num >= 0) into p.buf, up to limit
// bytes. Single-record files (stat, io, syscall, wchan) arrive whole in one
// read shorter than the buffer, which saves the read that would return 0;
// whole forces reading to EOF for multi-record files.
func (p *procFiles) read(dirfd int, name string, num, limit int, whole bool) ([]byte, error) {
	return p.readPath(dirfd, p.cpath(name, num), limit, whole)
}

// readChildren reads /proc/PID/task/TID/children: the PIDs of the children
// that thread forked (or that were reparented to it), space-separated.
func (p *procFiles) readChildren(dirfd, tid int) ([]byte, error) {
	p.path = append(p.path[:0], "task/"...)
	p.path = strconv.AppendInt(p.path, int64(tid), 10)
	p.path = append(p.path, "/children\x00"...)
	// A seq_file read returns fewer bytes than asked only at EOF or when its
	// page-sized buffer filled; under half a page it was EOF.
	b, err := p.readPath(dirfd, &p.path[0], 2048, false)
	if err != nil || len(b) < 2048 {
		return b, err
	}
	return p.readPath(dirfd, &p.path[0], 1<<20, true)
}

func (p *procFiles) readPath(dirfd int, path *byte, limit int, whole bool) ([]byte, error) {
	fd, err := openat(dirfd, path, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	n := 0
	for {
		if n == len(p.buf) {
			if n >= limit {
				break
			}
			p.buf = append(p.buf, make([]byte, len(p.buf))...)
		}
		end := min(len(p.buf), limit)
		m, err := unix.Read(fd, p.buf[n:end])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if m == 0 {
			break
		}
		n += m
		if n >= limit || (!whole && n < end) {
			break
		}
	}
	return p.buf[:n], nil
}

// eachDirent calls fn with every numeric entry of the open directory fd (the
// names under /proc/PID/task and /proc/PID/fd are all numbers).
func (p *procFiles) eachNumericDirent(fd int, fn func(int) bool) error {
	for {
		n, err := unix.Getdents(fd, p.dirents)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		// procfs fills the buffer until the next entry does not fit; a
		// numeric entry takes at most 40 bytes, so a result this short
		// holds the last entry and the call that would return 0 is saved.
		last := n <= len(p.dirents)-64
		for off := 0; off+19 <= n; {
			// struct linux_dirent64: ino u64, off s64, reclen u16, type u8, name.
			reclen := int(*(*uint16)(unsafe.Pointer(&p.dirents[off+16])))
			if reclen == 0 || off+reclen > n {
				break
			}
			name := p.dirents[off+19 : off+reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			if num, ok := atoi(name); ok {
				if !fn(num) {
					return nil
				}
			}
			off += reclen
		}
		if last {
			return nil
		}
	}
}

// atoi parses a non-negative decimal without allocating.
func atoi(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

func atou64(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	return n, true
}

func atoiSigned(b []byte) (int, bool) {
	if len(b) > 0 && b[0] == '-' {
		n, ok := atoi(b[1:])
		return -n, ok
	}
	return atoi(b)
}

// readRuns returns how many times the process has been scheduled onto a
// CPU: the third field of /proc/PID/schedstat (CONFIG_SCHED_INFO).
func (p *procFiles) readRuns(dirfd int) (uint64, bool) {
	b, err := p.read(dirfd, "schedstat", -1, 4096, false)
	if err != nil {
		return 0, false
	}
	return atou64(field(bytes.TrimSpace(b), 2))
}

// field returns the n-th (from 0) space-separated field of b, or nil.
func field(b []byte, n int) []byte {
	for ; n > 0; n-- {
		sp := bytes.IndexByte(b, ' ')
		if sp < 0 {
			return nil
		}
		b = b[sp+1:]
	}
	if sp := bytes.IndexByte(b, ' '); sp >= 0 {
		b = b[:sp]
	}
	return b
}

// statFields are the parts of /proc/PID/stat the sampler uses.
type statFields struct {
	comm                         []byte // aliases the read buffer
	state                        byte
	ppid, pgrp, session          int
	ttyNr, tpgid                 int
	utime, stime, cutime, cstime uint64
	threads                      int
	start                        uint64
}

var errBadStat = errors.New("malformed /proc stat line")

// parseStat parses "pid (comm) state ppid …". comm may hold spaces and
// parentheses, so it ends at the last ')'.
func parseStat(b []byte) (statFields, error) {
	var s statFields
	open := bytes.IndexByte(b, '(')
	closing := bytes.LastIndexByte(b, ')')
	if open < 0 || closing < open || closing+2 >= len(b) {
		return s, errBadStat
	}
	s.comm = b[open+1 : closing]
	rest := b[closing+2:]
	// Field 3 (state) is index 0 of rest.
	for i := 0; i <= 19 && len(rest) > 0; i++ {
		f := rest
		if sp := bytes.IndexByte(rest, ' '); sp >= 0 {
			f, rest = rest[:sp], rest[sp+1:]
		} else {
			rest = nil
		}
		var ok = true
		switch i {
		case 0:
			if len(f) != 1 {
				return s, errBadStat
			}
			s.state = f[0]
		case 1:
			s.ppid, ok = atoi(f)
		case 2:
			s.pgrp, ok = atoi(f)
		case 3:
			s.session, ok = atoi(f)
		case 4:
			s.ttyNr, ok = atoiSigned(f)
		case 5:
			s.tpgid, ok = atoiSigned(f)
		case 11:
			s.utime, ok = atou64(f)
		case 12:
			s.stime, ok = atou64(f)
		case 13:
			s.cutime, ok = atou64(f)
		case 14:
			s.cstime, ok = atou64(f)
		case 17:
			s.threads, ok = atoi(f)
		case 19:
			s.start, ok = atou64(bytes.TrimRight(f, "\n"))
			if !ok {
				return s, errBadStat
			}
			return s, nil
		}
		if !ok {
			return s, errBadStat
		}
	}
	return s, errBadStat
}

// ioCounters are the /proc/PID/io fields the watchdog uses.
type ioCounters struct {
	rchar, wchar, readBytes, writeBytes int64
}

func (a ioCounters) sub(b ioCounters) ioCounters {
	return ioCounters{
		rchar:      max(a.rchar-b.rchar, 0),
		wchar:      max(a.wchar-b.wchar, 0),
		readBytes:  max(a.readBytes-b.readBytes, 0),
		writeBytes: max(a.writeBytes-b.writeBytes, 0),
	}
}

func parseIO(b []byte) ioCounters {
	var c ioCounters
	for len(b) > 0 {
		line := b
		if nl := bytes.IndexByte(b, '\n'); nl >= 0 {
			line, b = b[:nl], b[nl+1:]
		} else {
			b = nil
		}
		colon := bytes.IndexByte(line, ':')
		if colon < 0 {
			continue
		}
		v, ok := atou64(bytes.TrimSpace(line[colon+1:]))
		if !ok {
			continue
		}
		switch string(line[:colon]) { // no allocation: compared, not kept
		case "rchar":
			c.rchar = int64(v)
		case "wchar":
			c.wchar = int64(v)
		case "read_bytes":
			c.readBytes = int64(v)
		case "write_bytes":
			c.writeBytes = int64(v)
		}
	}
	return c
}

// syscallState is /proc/PID/syscall: "running", "-1 sp pc" (blocked
// outside a syscall) or "nr arg0 … arg5 sp pc" in hex.
type syscallState struct {
	nr   int
	args [6]uint64
}

func parseSyscall(b []byte) (syscallState, bool) {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("running")) {
		return syscallState{nr: SyscallRunning}, true
	}
	field := func() []byte {
		f := b
		if sp := bytes.IndexByte(b, ' '); sp >= 0 {
			f, b = b[:sp], b[sp+1:]
		} else {
			b = nil
		}
		return f
	}
	nr, ok := atoiSigned(field())
	if !ok {
		return syscallState{}, false
	}
	st := syscallState{nr: nr}
	if nr < 0 {
		st.nr = SyscallRunning
		return st, true
	}
	for i := range st.args {
		f := field()
		v, ok := parseHex(bytes.TrimPrefix(f, []byte("0x")))
		if !ok {
			return syscallState{}, false
		}
		st.args[i] = v
	}
	return st, true
}

func parseHex(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 16 {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		n = n<<4 | uint64(c)
	}
	return n, true
}

func closeFd(fd int) { _ = unix.Close(fd) }
