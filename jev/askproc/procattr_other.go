//go:build !linux

package askproc

import "syscall"

// helperAttr is empty where there is no parent-death signal: an orphaned
// helper ends when its budget does.
func helperAttr() *syscall.SysProcAttr { return nil }
