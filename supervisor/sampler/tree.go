package sampler

import (
	"errors"
	"time"
)

// Syscall values that are not a syscall number.
const (
	SyscallRunning = -1 // on a CPU, or blocked outside any syscall
	SyscallUnknown = -2 // /proc/PID/syscall was unreadable; Wchan is the only hint
)

// Proc is one process of the tree as seen by one sample.
type Proc struct {
	PID, PPID, PGID, SID int
	Comm                 string // kernel's short name (15 bytes at most)
	Cmdline              string // argv joined by spaces, capped at 4 KiB
	State                byte   // R S D T t Z X I, as in /proc/PID/stat

	// CPUPercent is the process's own utime+stime over the window (or over
	// its life when it started inside the window); 100 is one full core.
	CPUPercent float64
	// I/O deltas since the previous sample, from /proc/PID/io. The kernel
	// folds a reaped child's counters into its parent; the part the previous
	// sample already counted is taken off, so the parent shows only new work.
	ReadBytes, WriteBytes, RChar, WChar int64

	Wchan       string // kernel function it sleeps in; "" when running or unknown
	Syscall     int    // blocking syscall number, SyscallRunning or SyscallUnknown
	SyscallName string // "read", "wait4", "clock_nanosleep"…; "" when not known
	SyscallArg0 uint64
	// WaitTimed: the main thread's blocking call has a timeout, WaitTimeout
	// its value (see Timer.Timeout).
	WaitTimed   bool
	WaitTimeout time.Duration
	Argv        []string // argv from /proc/PID/cmdline (Cmdline, not joined)

	Fd0    string // what fd 0 points to ("/dev/pts/3", "pipe:[123]", "/dev/null")
	ReadFd string // when blocked in a read- or poll-like syscall: what that fd points to

	Sockets    []Socket // TCP sockets it holds
	Children   int      // direct children found by the walk (zombies excluded)
	Threads    int
	StartTicks uint64        // start time in clock ticks since boot; with PID it names the process
	Age        time.Duration // how long it has run, at the sample
	New        bool          // not in the previous sample

	// Unread lists what could not be read for this live process ("io",
	// "syscall", "fds"), usually because it belongs to another user (sudo).
	Unread []string
}

// Timer is one thread blocked in a call that wakes by itself.
type Timer struct {
	PID, TID int
	Comm     string
	Syscall  string // "epoll_pwait", "futex", "clock_nanosleep"…
	// Timeout is what is left of an absolute deadline (Absolute), else the
	// timeout the call was made with; 0 when it could not be read.
	Timeout  time.Duration
	Absolute bool
}

// Socket is one TCP socket held by a process of the tree.
type Socket struct {
	State  string // LISTEN | SYN_SENT | ESTABLISHED | CLOSE_WAIT | …
	Local  string // "127.0.0.1:8080", "[::1]:8080"
	Remote string
}

// TTYMode is what the PTY's line discipline is set up for.
type TTYMode string

const (
	TTYUnknown TTYMode = ""
	TTYLine    TTYMode = "line"   // canonical with echo: a shell prompt, `read`
	TTYSecret  TTYMode = "secret" // canonical without echo: sudo, ssh, gpg asking for a password
	TTYRaw     TTYMode = "raw"    // non-canonical: a pager, an editor, a TUI
)

// Tree is one sample of the supervisor's descendants. Every counter is a
// delta over Window.
type Tree struct {
	Time   time.Time
	Window time.Duration // since the previous sample (the first: since New)
	// First: the sampler's first sample. With nothing before it, its
	// counters are each process's life so far prorated to Window (CPU a
	// lifetime average, I/O a sliver of it), not what happened in a window.
	First bool
	Procs []Proc // parents before their children; zombies left out

	CPUPercent                          float64 // all processes, including children reaped inside the window
	ReadBytes, WriteBytes, RChar, WChar int64

	AnyRunning bool // some process is in state R, or in D while doing I/O
	// TimerSleep: some thread of some process waits with a timeout (a sleep,
	// a poll/select/epoll_wait with a timeout, a futex wait with a
	// deadline): it will wake by itself. Timers lists them (at most 64;
	// TimersCapped when there were more).
	TimerSleep   bool
	Timers       []Timer
	TimersCapped bool

	ForegroundPGID int     // the PTY's foreground process group; 0 if unknown
	TTYMode        TTYMode // from the PTY's termios; "" without a PTY

	// ReadingTTY: a process of the foreground group is blocked reading this
	// PTY, that is waiting for someone to type.
	ReadingTTY     bool
	ReadingTTYPID  int
	ReadingTTYComm string
	// ReadingTTYBy is the evidence: "syscall" (read/poll on the PTY's fd),
	// "wchan" (sleeping in the tty read path with fd 0 on the PTY; used when
	// the syscall is unreadable) or "termios" (a sleeping foreground process
	// of another user, such as sudo, with the PTY in secret mode).
	ReadingTTYBy string
	// ReadingTTYTimed: the read itself has a timeout (`read -t 30` waits in
	// pselect6 with one), ReadingTTYTimeout its value when it could be read.
	ReadingTTYTimed   bool
	ReadingTTYTimeout time.Duration
	ReadingTTYSyscall string
	// Forwarding: the reader waits on the terminal and a socket in the same
	// call (ssh, telnet, nc, `docker exec -it`): it reads the terminal only to
	// pass keys on, and what it waits for is the connection.
	Forwarding bool

	Listening   []Socket
	Connecting  []Socket // SYN_SENT
	Established []Socket
	// PeerSilent: every established socket of the tree sent data after it
	// last received any (a request is out), and the one heard from last has
	// received nothing for this long (tcp_info via sock_diag); 0 when some
	// socket is not waiting for an answer, or it could not be read.
	PeerSilent time.Duration

	// Complete is false when something could not be read for a live process:
	// a sample with holes must never be read as "idle".
	Complete bool
}

// ErrUnsupported is returned by Sample on systems without Linux /proc.
var ErrUnsupported = errors.New("process sampling needs Linux /proc; the watchdog cannot judge commands on this system")
