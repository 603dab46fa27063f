//go:build linux

package sampler

import (
	"bytes"
	"encoding/binary"

	"golang.org/x/sys/unix"
)

// maxFds bounds the fd links read per process: a process with thousands of
// open files would otherwise dominate the sample's cost.
const maxFds = 512

// fdLink is one open fd and where its readlink target sits in procFiles.links.
type fdLink struct {
	fd, off, n int
}

// scanFds reads the readlink target of every fd of the process into p.links.
func (p *procFiles) scanFds(dirfd int, links []fdLink) ([]fdLink, error) {
	links = links[:0]
	p.links = p.links[:0]
	dir, err := openat(dirfd, p.cpath("fd", -1), unix.O_DIRECTORY)
	if err != nil {
		return links, err
	}
	defer unix.Close(dir)
	var linkErr error
	err = p.eachNumericDirent(dir, func(fd int) bool {
		if len(links) >= maxFds {
			return false
		}
		if cap(p.links)-len(p.links) < 512 {
			grown := make([]byte, len(p.links), 2*cap(p.links)+512)
			copy(grown, p.links)
			p.links = grown
		}
		free := p.links[len(p.links):cap(p.links)]
		n, err := readlinkat(dir, p.cpath("", fd), free[:512])
		if err != nil {
			// The fd was closed between getdents and readlink: not an error.
			if err != unix.ENOENT {
				linkErr = err
			}
			return true
		}
		links = append(links, fdLink{fd: fd, off: len(p.links), n: n})
		p.links = p.links[:len(p.links)+n]
		return true
	})
	if err == nil {
		err = linkErr
	}
	return links, err
}

func (p *procFiles) target(links []fdLink, fd int) []byte {
	for _, l := range links {
		if l.fd == fd {
			return p.links[l.off : l.off+l.n]
		}
	}
	return nil
}

// socketInode parses "socket:[12345]".
func socketInode(target []byte) (uint64, bool) {
	rest, ok := bytes.CutPrefix(target, []byte("socket:["))
	if !ok || len(rest) < 2 || rest[len(rest)-1] != ']' {
		return 0, false
	}
	return atou64(rest[:len(rest)-1])
}

// maxWaitFds bounds how many fds of one poll/select/epoll set are decoded.
const maxWaitFds = 64

// waitedFds returns the fds a process blocked in st is waiting to read. For
// poll and select the fd sets live in the process's memory, read with
// process_vm_readv (same permission as /proc/PID/syscall); for epoll the
// kernel lists the watched fds in /proc/PID/fdinfo/EPFD.
func (p *procFiles) waitedFds(pid, dirfd int, kind syscallKind, st syscallState, out []int) []int {
	out = out[:0]
	switch kind {
	case kindReadFD:
		out = append(out, int(int32(st.args[0])))
	case kindPoll:
		n := int(min(st.args[1], maxWaitFds))
		if st.args[0] == 0 || n == 0 {
			return out
		}
		raw := p.remote(pid, st.args[0], n*8)
		for i := 0; i+8 <= len(raw); i += 8 {
			// struct pollfd { int fd; short events; short revents; }
			fd := int32(binary.NativeEndian.Uint32(raw[i:]))
			events := binary.NativeEndian.Uint16(raw[i+4:])
			if fd >= 0 && events&(unix.POLLIN|unix.POLLPRI) != 0 {
				out = append(out, int(fd))
			}
		}
	case kindSelect:
		nfds := int(min(st.args[0], 1024))
		if st.args[1] == 0 || nfds == 0 {
			return out
		}
		raw := p.remote(pid, st.args[1], (nfds+63)/64*8)
		for fd := 0; fd < nfds && fd/8 < len(raw) && len(out) < maxWaitFds; fd++ {
			// fd_set is an array of longs; on little- and big-endian alike bit
			// fd%64 of word fd/64 is set, so read it word by word.
			word := binary.NativeEndian.Uint64(raw[fd/64*8:])
			if word&(1<<(fd%64)) != 0 {
				out = append(out, fd)
			}
		}
	case kindEpoll:
		b, err := p.read(dirfd, "fdinfo", int(int32(st.args[0])), 1<<20, true)
		if err != nil {
			return out
		}
		// "tfd:        5 events:       19 data: …"
		for len(b) > 0 && len(out) < maxWaitFds {
			line := b
			if nl := bytes.IndexByte(b, '\n'); nl >= 0 {
				line, b = b[:nl], b[nl+1:]
			} else {
				b = nil
			}
			rest, ok := bytes.CutPrefix(line, []byte("tfd:"))
			if !ok {
				continue
			}
			fields := bytes.Fields(rest)
			if len(fields) < 3 || string(fields[1]) != "events:" {
				continue
			}
			fd, ok1 := atoi(fields[0])
			events, ok2 := parseHex(fields[2])
			if ok1 && ok2 && events&unix.EPOLLIN != 0 {
				out = append(out, fd)
			}
		}
	}
	return out
}

// remote reads n bytes at addr in process pid's memory into p.buf, or
// returns nil when the memory is gone or not readable.
func (p *procFiles) remote(pid int, addr uint64, n int) []byte {
	if n > len(p.buf) {
		p.buf = make([]byte, n)
	}
	local := []unix.Iovec{{Base: &p.buf[0]}}
	local[0].SetLen(n)
	remote := []unix.RemoteIovec{{Base: uintptr(addr), Len: n}}
	got, err := unix.ProcessVMReadv(pid, local, remote, 0)
	if err != nil || got <= 0 {
		return nil
	}
	return p.buf[:got:got]
}
