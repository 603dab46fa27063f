package watch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// maxLinkHops is how many final symlinks openWatched follows before it
// gives up, as the kernel's own limit (MAXSYMLINKS) does.
const maxLinkHops = 40

// openWatched opens a watched file for reading. A final symlink is
// followed only when it is the user's own (or root's): another user who
// can write the watched directory could otherwise plant a link to one of
// the user's private files and have its content fired to the agent. The
// link's owner is read from the link itself, held open (O_PATH), and its
// target read from that same inode, so a link swapped in between the look
// and the open is never followed.
func openWatched(path string) (*os.File, error) {
	for range maxLinkHops {
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err == nil {
			return os.NewFile(uintptr(fd), path), nil
		}
		if !errors.Is(err, unix.ELOOP) {
			return nil, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		target, err := ownLinkTarget(path)
		if err != nil {
			return nil, err
		}
		if !strings.HasPrefix(target, "/") {
			// Relative to the link's directory as the kernel resolves it
			// (no lexical cleaning: the directory may itself be a link).
			target = path[:strings.LastIndexByte(path, '/')+1] + target
		}
		path = target
	}
	return nil, &fs.PathError{Op: "open", Path: path, Err: unix.ELOOP}
}

// ownLinkTarget reads the target of the symlink at path if the user (or
// root) owns it, and refuses it otherwise.
func ownLinkTarget(path string) (string, error) {
	lfd, err := unix.Open(path, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(lfd)
	var st unix.Stat_t
	if err := unix.Fstat(lfd, &st); err != nil {
		return "", &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFLNK {
		// Replaced by a file between the two opens: the next open reads it.
		return path, nil
	}
	if uid := int(st.Uid); uid != os.Geteuid() && uid != 0 {
		return "", fmt.Errorf("%s is a symlink owned by another user (uid %d); hangdog does not follow it, since it could point at one of your private files: watch the file it names instead, if you trust it", path, uid)
	}
	buf := make([]byte, unix.PathMax)
	n, err := unix.Readlinkat(lfd, "", buf)
	if err != nil {
		return "", &fs.PathError{Op: "readlink", Path: path, Err: err}
	}
	return string(buf[:n]), nil
}

// othersCanWrite says why users other than this one (and root) can change
// what is at path, or "" if they cannot: its directory is writable by
// all, by a group that is not the user's own, or owned by another user.
// Such a user can replace the file, or plant one where it is missing.
func othersCanWrite(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	dir := filepath.Dir(abs)
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		return ""
	}
	switch {
	case int(st.Uid) != os.Geteuid() && st.Uid != 0:
		return fmt.Sprintf("%s belongs to another user (uid %d)", dir, st.Uid)
	case st.Mode&unix.S_IWOTH != 0:
		return fmt.Sprintf("every user can write %s", dir)
	case st.Mode&unix.S_IWGRP != 0 && int(st.Gid) != os.Getegid():
		return fmt.Sprintf("group %d can write %s", st.Gid, dir)
	}
	return ""
}
