//go:build linux

package supervisor

import (
	"os"
	"os/signal"
	"syscall"
	"unsafe"
)

// inheritedSignals are the signals a command must not inherit ignored. A
// shell starts a background job (`hangdog run … &` in a script) with
// SIGINT and SIGQUIT ignored, the Go runtime leaves an inherited SIGINT
// ignore in place, and exec passes an ignored disposition on (a caught one
// is reset to the default): the command would then shrug off the SIGINT of
// an interrupted caller and end only in SIGKILL after the grace, 137
// instead of 130.
var inheritedSignals = []syscall.Signal{syscall.SIGINT, syscall.SIGQUIT}

// unignoreSignals catches, and drops, each of inheritedSignals that this
// process was started with ignored, before the command is started, so that
// the command starts with the default disposition. The supervisor is in a
// session of its own: a terminal's ^C never reaches it.
func unignoreSignals() {
	var caught []os.Signal
	for _, sig := range inheritedSignals {
		if signalIgnored(sig) {
			caught = append(caught, sig)
		}
	}
	if len(caught) == 0 {
		return
	}
	drop := make(chan os.Signal, 1)
	signal.Notify(drop, caught...)
	go func() {
		for range drop {
		}
	}()
}

// signalIgnored reports whether sig's disposition is SIG_IGN, asking the
// kernel (rt_sigaction with no new action); the handler is the first field
// of the kernel's struct sigaction on amd64 and arm64.
func signalIgnored(sig syscall.Signal) bool {
	var old struct {
		handler  uintptr
		flags    uint64
		restorer uintptr
		mask     uint64
	}
	_, _, errno := syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(sig), 0, uintptr(unsafe.Pointer(&old)), 8, 0, 0)
	return errno == 0 && old.handler == 1 // SIG_IGN
}
