//go:build linux

// Package unixsock listens on and dials unix sockets at paths of any
// length: a task's socket lives in its directory under HANGDOG_HOME, which
// may be deeper than the 107 bytes a socket address holds.
package unixsock

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// maxSocketPath is the longest path a unix socket address holds (107 bytes
// on Linux, with room for the final NUL).
var maxSocketPath = len(unix.RawSockaddrUnix{}.Path) - 1

// shortSocketPath returns a name for the socket at path that fits a socket
// address, and a release to call once the socket is bound or connected. A
// path that fits is returned as it is. A longer one (a deep HANGDOG_HOME) is
// reached through an open descriptor of its directory,
// /proc/self/fd/N/sock: the kernel resolves it to the same directory, so the
// socket is the same file, in the same private directory, whatever the
// home's length.
func shortSocketPath(path string) (string, func(), error) {
	if len(path) <= maxSocketPath {
		return path, func() {}, nil
	}
	dir, base := filepath.Split(path)
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", nil, fmt.Errorf("open %s to reach its socket: %w", dir, err)
	}
	short := fmt.Sprintf("/proc/self/fd/%d/%s", fd, base)
	if len(short) > maxSocketPath {
		unix.Close(fd)
		return "", nil, fmt.Errorf("socket name %s is too long for a unix socket (limit %d)", base, maxSocketPath)
	}
	return short, func() { unix.Close(fd) }, nil
}

// Listen listens on the unix socket at path, however long the path.
// The socket is not removed when the listener closes; its owner removes it
// by its real path.
func Listen(path string) (*net.UnixListener, error) {
	name, release, err := shortSocketPath(path)
	if err != nil {
		return nil, err
	}
	defer release()
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: name, Net: "unix"})
	if err != nil {
		return nil, err
	}
	ln.SetUnlinkOnClose(false)
	return ln, nil
}

// Dial connects to the unix socket at path, however long the path.
func Dial(ctx context.Context, path string) (net.Conn, error) {
	name, release, err := shortSocketPath(path)
	if err != nil {
		return nil, err
	}
	defer release()
	var d net.Dialer
	return d.DialContext(ctx, "unix", name)
}

// SameUser reports whether the peer of c, a unix socket connection, runs
// as this process's user: a task's control socket answers no one else.
func SameUser(c net.Conn) bool {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return false
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return false
	}
	var cred *unix.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil || cerr != nil {
		return false
	}
	return int(cred.Uid) == os.Getuid()
}
