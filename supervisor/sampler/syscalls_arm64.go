//go:build linux && arm64

package sampler

import "golang.org/x/sys/unix"

// syscallTable holds the arm64 numbers (the generic table: no poll, select,
// pause or open; libc uses ppoll, pselect6 and openat instead).
var syscallTable = map[int]syscallInfo{
	unix.SYS_READ:              {"read", kindReadFD},
	unix.SYS_READV:             {"readv", kindReadFD},
	unix.SYS_PREAD64:           {"pread64", kindReadFD},
	unix.SYS_PREADV:            {"preadv", kindReadFD},
	unix.SYS_PREADV2:           {"preadv2", kindReadFD},
	unix.SYS_RECVFROM:          {"recvfrom", kindReadFD},
	unix.SYS_RECVMSG:           {"recvmsg", kindReadFD},
	unix.SYS_RECVMMSG:          {"recvmmsg", kindReadFD},
	unix.SYS_PPOLL:             {"ppoll", kindPoll},
	unix.SYS_PSELECT6:          {"pselect6", kindSelect},
	unix.SYS_EPOLL_PWAIT:       {"epoll_pwait", kindEpoll},
	unix.SYS_EPOLL_PWAIT2:      {"epoll_pwait2", kindEpoll},
	unix.SYS_NANOSLEEP:         {"nanosleep", kindTimer},
	unix.SYS_CLOCK_NANOSLEEP:   {"clock_nanosleep", kindTimer},
	unix.SYS_WRITE:             {"write", kindOther},
	unix.SYS_WRITEV:            {"writev", kindOther},
	unix.SYS_SENDTO:            {"sendto", kindOther},
	unix.SYS_SENDMSG:           {"sendmsg", kindOther},
	unix.SYS_WAIT4:             {"wait4", kindOther},
	unix.SYS_WAITID:            {"waitid", kindOther},
	unix.SYS_FUTEX:             {"futex", kindOther},
	unix.SYS_ACCEPT:            {"accept", kindOther},
	unix.SYS_ACCEPT4:           {"accept4", kindOther},
	unix.SYS_CONNECT:           {"connect", kindOther},
	unix.SYS_RT_SIGSUSPEND:     {"rt_sigsuspend", kindOther},
	unix.SYS_RT_SIGTIMEDWAIT:   {"rt_sigtimedwait", kindOther},
	unix.SYS_OPENAT:            {"openat", kindOther},
	unix.SYS_FLOCK:             {"flock", kindOther},
	unix.SYS_FCNTL:             {"fcntl", kindOther},
	unix.SYS_IO_URING_ENTER:    {"io_uring_enter", kindOther},
	unix.SYS_IO_GETEVENTS:      {"io_getevents", kindOther},
	unix.SYS_MSGRCV:            {"msgrcv", kindOther},
	unix.SYS_SEMOP:             {"semop", kindOther},
	unix.SYS_SEMTIMEDOP:        {"semtimedop", kindOther},
	unix.SYS_FSYNC:             {"fsync", kindOther},
	unix.SYS_FDATASYNC:         {"fdatasync", kindOther},
	unix.SYS_SYNC:              {"sync", kindOther},
	unix.SYS_PIDFD_SEND_SIGNAL: {"pidfd_send_signal", kindOther},
}
