//go:build linux

package sampler

import (
	"encoding/binary"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Principle (issue 23, cause 3): a silent peer is stuck. The kernel knows
// how long a TCP socket has gone without receiving data and how long since
// it last sent (tcp_info's last_data_recv and last_data_sent), and tells any
// user about sockets through sock_diag (netlink, no privilege). A request
// sent and nothing received since, for longer than the checks' horizon, is
// a wait on a peer that does not answer.

const (
	inetDiagInfo   = 2  // INET_DIAG_INFO: the tcp_info attribute
	tcpEstablished = 1  // TCP_ESTABLISHED
	inetDiagReqLen = 56 // struct inet_diag_req_v2
	inetDiagMsgLen = 72 // struct inet_diag_msg
	inetDiagInode  = 68 // offset of idiag_inode in inet_diag_msg
)

// tcpQuiet is what tcp_info says of one socket.
type tcpQuiet struct {
	lastRecv, lastSent time.Duration
	// neverHeard: data went out and none ever came in (tcp_info's data
	// segment counters, Linux 4.6+; false when the kernel does not say).
	neverHeard bool
}

// owesAnswer reports whether the peer owes this socket an answer: it sent
// data after it last received any. The times are in jiffies (1–10 ms), so a
// peer on the same machine answers in the tick the request went out and
// the two are equal: a tie says nothing, unless nothing was ever received
// (a client connects and sends its request in one tick, too).
func (q tcpQuiet) owesAnswer() bool {
	return q.lastSent < q.lastRecv || q.lastSent == q.lastRecv && q.neverHeard
}

// tcpQuietness asks sock_diag about the established TCP sockets of this
// network namespace and returns those of inodes. Errors (no netlink) leave
// the map empty: the judge then goes without it.
func tcpQuietness(inodes map[uint64]bool) map[uint64]tcpQuiet {
	out := map[uint64]tcpQuiet{}
	if len(inodes) == 0 {
		return out
	}
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.NETLINK_INET_DIAG)
	if err != nil {
		return out
	}
	defer unix.Close(fd)
	_ = unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Usec: 200000})
	buf := make([]byte, 32<<10)
	for _, family := range []uint8{unix.AF_INET, unix.AF_INET6} {
		req := make([]byte, unix.NLMSG_HDRLEN+inetDiagReqLen)
		binary.NativeEndian.PutUint32(req[0:], uint32(len(req)))
		binary.NativeEndian.PutUint16(req[4:], unix.SOCK_DIAG_BY_FAMILY)
		binary.NativeEndian.PutUint16(req[6:], unix.NLM_F_REQUEST|unix.NLM_F_DUMP)
		r := req[unix.NLMSG_HDRLEN:]
		r[0], r[1], r[2] = family, unix.IPPROTO_TCP, 1<<(inetDiagInfo-1)
		binary.NativeEndian.PutUint32(r[4:], 1<<tcpEstablished)
		if err := unix.Sendto(fd, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
			return out
		}
		if !readDiag(fd, buf, inodes, out) {
			return out
		}
	}
	return out
}

// readDiag reads one dump's answers into out; false on an error.
func readDiag(fd int, buf []byte, inodes map[uint64]bool, out map[uint64]tcpQuiet) bool {
	for {
		n, _, err := unix.Recvfrom(fd, buf, 0)
		if err != nil {
			return false
		}
		for b := buf[:n]; len(b) >= unix.NLMSG_HDRLEN; {
			l := int(binary.NativeEndian.Uint32(b[0:]))
			typ := binary.NativeEndian.Uint16(b[4:])
			if l < unix.NLMSG_HDRLEN || l > len(b) {
				return false
			}
			data := b[unix.NLMSG_HDRLEN:l]
			b = b[min((l+3)&^3, len(b)):]
			switch typ {
			case unix.NLMSG_DONE:
				return true
			case unix.NLMSG_ERROR:
				return false
			}
			if len(data) < inetDiagMsgLen {
				continue
			}
			inode := uint64(binary.NativeEndian.Uint32(data[inetDiagInode:]))
			if !inodes[inode] {
				continue
			}
			if info, ok := tcpInfoAttr(data[inetDiagMsgLen:]); ok {
				out[inode] = tcpQuiet{
					lastRecv:   time.Duration(info.Last_data_recv) * time.Millisecond,
					lastSent:   time.Duration(info.Last_data_sent) * time.Millisecond,
					neverHeard: info.Data_segs_in == 0 && info.Data_segs_out > 0,
				}
			}
		}
	}
}

// tcpInfoAttr finds INET_DIAG_INFO among the attributes after the message.
func tcpInfoAttr(b []byte) (unix.TCPInfo, bool) {
	var info unix.TCPInfo
	for len(b) >= 4 {
		l := int(binary.NativeEndian.Uint16(b[0:]))
		typ := binary.NativeEndian.Uint16(b[2:])
		if l < 4 || l > len(b) {
			break
		}
		if typ == inetDiagInfo {
			data := b[4:l]
			size := int(unsafe.Sizeof(info))
			raw := (*[1 << 10]byte)(unsafe.Pointer(&info))[:size:size]
			copy(raw, data) // an older kernel's shorter struct leaves the rest zero
			return info, len(data) >= int(unsafe.Offsetof(info.Last_ack_recv))
		}
		b = b[(l+3)&^3:]
	}
	return info, false
}
