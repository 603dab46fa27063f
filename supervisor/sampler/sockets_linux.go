//go:build linux

package sampler

import (
	"bytes"
	"encoding/binary"
	"net/netip"
)

// tcpStates maps the hex state column of /proc/net/tcp (include/net/tcp_states.h).
var tcpStates = [...]string{
	1: "ESTABLISHED", 2: "SYN_SENT", 3: "SYN_RECV", 4: "FIN_WAIT1", 5: "FIN_WAIT2",
	6: "TIME_WAIT", 7: "CLOSE", 8: "CLOSE_WAIT", 9: "LAST_ACK", 10: "LISTEN", 11: "CLOSING",
}

// eachTCPSocket calls fn for every line of a /proc/PID/net/tcp or tcp6 table
// whose inode wanted accepts, with the socket decoded. Only matching lines
// are decoded: on a busy machine the table holds every connection of the
// network namespace.
func eachTCPSocket(table []byte, wanted func(inode uint64) bool, fn func(inode uint64, s Socket)) {
	first := true
	for len(table) > 0 {
		line := table
		if nl := bytes.IndexByte(table, '\n'); nl >= 0 {
			line, table = table[:nl], table[nl+1:]
		} else {
			table = nil
		}
		if first { // header
			first = false
			continue
		}
		// sl local rem st tx:rx tr:when retrnsmt uid timeout inode …
		var f [10][]byte
		n := 0
		for rest := line; n < len(f); n++ {
			rest = bytes.TrimLeft(rest, " ")
			if len(rest) == 0 {
				break
			}
			end := bytes.IndexByte(rest, ' ')
			if end < 0 {
				end = len(rest)
			}
			f[n], rest = rest[:end], rest[end:]
		}
		if n < len(f) {
			continue
		}
		inode, ok := atou64(f[9])
		if !ok || inode == 0 || !wanted(inode) {
			continue
		}
		local, ok1 := parseTCPAddr(f[1])
		remote, ok2 := parseTCPAddr(f[2])
		st, ok3 := parseHex(f[3])
		if !ok1 || !ok2 || !ok3 {
			continue
		}
		state := "UNKNOWN"
		if st < uint64(len(tcpStates)) && tcpStates[st] != "" {
			state = tcpStates[st]
		}
		fn(inode, Socket{State: state, Local: local, Remote: remote})
	}
}

// parseTCPAddr decodes "0100007F:1F90" or the 32-hex-digit IPv6 form. The
// kernel prints each 32-bit word of the address in host byte order.
func parseTCPAddr(b []byte) (string, bool) {
	colon := bytes.IndexByte(b, ':')
	if colon < 0 {
		return "", false
	}
	port, ok := parseHex(b[colon+1:])
	if !ok || port > 0xffff {
		return "", false
	}
	hexAddr := b[:colon]
	var raw [16]byte
	switch len(hexAddr) {
	case 8, 32:
	default:
		return "", false
	}
	for i := 0; i < len(hexAddr)/8; i++ {
		w, ok := parseHex(hexAddr[i*8 : i*8+8])
		if !ok {
			return "", false
		}
		binary.NativeEndian.PutUint32(raw[i*4:], uint32(w))
	}
	var addr netip.Addr
	if len(hexAddr) == 8 {
		addr = netip.AddrFrom4([4]byte(raw[:4]))
	} else {
		addr = netip.AddrFrom16(raw)
	}
	return netip.AddrPortFrom(addr, uint16(port)).String(), true
}
