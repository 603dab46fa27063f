//go:build linux

package askproc

import "syscall"

// helperAttr has the kernel kill the helper if the asker dies first: an
// orphan would otherwise wait out its budget on a model nobody awaits. (The
// kernel ties this to the thread that started the helper; Go ends a thread
// only when a goroutine locked to it exits still locked, which hangdog's
// never do.)
func helperAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
