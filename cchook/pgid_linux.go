package cchook

import "syscall"

func getpgid(pid int) (int, error) { return syscall.Getpgid(pid) }
