//go:build linux

package sampler

// syscallKind says how to find the fd a blocked syscall waits on.
type syscallKind uint8

const (
	kindOther  syscallKind = iota
	kindReadFD             // arg0 is the fd being read
	kindPoll               // arg0 points to struct pollfd[arg1]
	kindSelect             // arg1 points to the read fd_set of arg0 bits
	kindEpoll              // arg0 is an epoll fd; its fdinfo lists the watched fds
	kindTimer              // a plain sleep: nanosleep, clock_nanosleep
)

type syscallInfo struct {
	name string
	kind syscallKind
}

// lookupSyscall names a syscall number of this architecture. Only the calls
// a blocked process is commonly found in are named; the rest stay numbers.
func lookupSyscall(nr int) (syscallInfo, bool) {
	info, ok := syscallTable[nr]
	return info, ok
}
