//go:build linux

package sampler

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// Timed waits. A thread blocked in a call with a timeout — poll, select,
// epoll_wait, a futex wait with a deadline, a sleep — will wake by itself:
// that is how Go's runtime, Node's event loop, Python's asyncio and Tcl sleep.
// Such a thread is a pending timer, whichever thread of whichever process of
// the tree it is, and a tree with one is never idle.

// maxTimers caps the timers one sample reports. The watchdog tells the
// timers that approach from the polls re-armed sample after sample, so it
// needs each thread's (Go and Node run a dozen); past the cap it cannot, and
// counts the tree as having one that approaches (Tree.TimersCapped).
const maxTimers = 64

// futex operations (the command part of the op argument) that wait with a
// timeout: FUTEX_WAIT's is relative, FUTEX_WAIT_BITSET's is absolute.
const (
	futexWait       = 0
	futexWaitBitset = 9
	futexCmdMask    = 0x7f // without FUTEX_PRIVATE_FLAG and FUTEX_CLOCK_REALTIME
	futexRealtime   = 0x100
)

// timedWait reads the timeout of the call sc a thread of pid is blocked in.
// ok is false when the call has no timeout (it waits until something
// happens). timeout is what is left of it where that can be known (an
// absolute deadline), else the timeout the call was made with; 0 when the
// value could not be read (the call still has one).
func (p *procFiles) timedWait(pid int, name string, sc syscallState) (timeout time.Duration, absolute, ok bool) {
	a := sc.args
	switch name {
	case "nanosleep":
		return p.timespecAt(pid, a[0]), false, true
	case "clock_nanosleep":
		if a[1]&unix.TIMER_ABSTIME != 0 {
			return untilDeadline(int32(a[0]), p.timespecAt(pid, a[2])), true, true
		}
		return p.timespecAt(pid, a[2]), false, true
	case "poll":
		return msTimeout(a[2])
	case "epoll_wait", "epoll_pwait":
		return msTimeout(a[3])
	case "ppoll":
		return p.pointedTimeout(pid, a[2], false)
	case "pselect6":
		return p.pointedTimeout(pid, a[4], false)
	case "select":
		return p.pointedTimeout(pid, a[4], true)
	case "epoll_pwait2":
		return p.pointedTimeout(pid, a[3], false)
	case "rt_sigtimedwait":
		return p.pointedTimeout(pid, a[2], false)
	case "semtimedop":
		return p.pointedTimeout(pid, a[3], false)
	case "futex":
		if a[3] == 0 {
			return 0, false, false
		}
		switch a[1] & futexCmdMask {
		case futexWait:
			return p.timespecAt(pid, a[3]), false, true
		case futexWaitBitset:
			clock := int32(unix.CLOCK_MONOTONIC)
			if a[1]&futexRealtime != 0 {
				clock = unix.CLOCK_REALTIME
			}
			return untilDeadline(clock, p.timespecAt(pid, a[3])), true, true
		}
	}
	return 0, false, false
}

// msTimeout is a timeout passed in milliseconds as an int; negative waits
// forever.
func msTimeout(arg uint64) (time.Duration, bool, bool) {
	ms := int32(arg)
	if ms < 0 {
		return 0, false, false
	}
	return time.Duration(ms) * time.Millisecond, false, true
}

// pointedTimeout is a timeout passed by pointer (NULL waits forever): a
// timespec, or a timeval for select.
func (p *procFiles) pointedTimeout(pid int, addr uint64, timeval bool) (time.Duration, bool, bool) {
	if addr == 0 {
		return 0, false, false
	}
	raw := p.remote(pid, addr, 16)
	if len(raw) < 16 {
		return 0, false, true
	}
	sec := int64(binary.NativeEndian.Uint64(raw))
	frac := int64(binary.NativeEndian.Uint64(raw[8:]))
	if timeval {
		frac *= 1000
	}
	return clampDuration(sec, frac), false, true
}

// timespecAt reads a struct timespec; 0 when unreadable.
func (p *procFiles) timespecAt(pid int, addr uint64) time.Duration {
	if addr == 0 {
		return 0
	}
	raw := p.remote(pid, addr, 16)
	if len(raw) < 16 {
		return 0
	}
	return clampDuration(int64(binary.NativeEndian.Uint64(raw)), int64(binary.NativeEndian.Uint64(raw[8:])))
}

// clampDuration turns seconds and nanoseconds into a Duration, keeping
// garbage (a pointer into freed memory) from overflowing.
func clampDuration(sec, nsec int64) time.Duration {
	const maxSec = 100 * 365 * 24 * 3600
	if sec < 0 || nsec < 0 || nsec >= 1e9 {
		return 0
	}
	if sec > maxSec {
		sec = maxSec
	}
	return time.Duration(sec)*time.Second + time.Duration(nsec)
}

// untilDeadline is how long until an absolute deadline on clock (the value
// read as a Duration since the clock's epoch); 0 when unknown or past.
func untilDeadline(clock int32, deadline time.Duration) time.Duration {
	if deadline == 0 {
		return 0
	}
	var now unix.Timespec
	if err := unix.ClockGettime(clock, &now); err != nil {
		return 0
	}
	left := deadline - time.Duration(now.Nano())
	if left < 0 {
		return 0
	}
	return left
}

// threadTimers appends the timed waits of pid's threads other than the main
// one (whose syscall readDetails has already read). Only a process with
// several threads pays for this: one read per extra thread.
func (s *Sampler) threadTimers(pid, dir int, out []Timer, reads []threadRead) ([]Timer, []threadRead) {
	taskDir, err := openat(dir, s.files.cpath("task", -1), unix.O_DIRECTORY)
	if err != nil {
		return out, reads
	}
	s.threads = s.threads[:0]
	_ = s.files.eachNumericDirent(taskDir, func(tid int) bool {
		if tid != pid {
			s.threads = append(s.threads, tid)
		}
		return len(s.threads) < 256
	})
	unix.Close(taskDir)
	for _, tid := range s.threads {
		if len(out) >= maxTimers {
			break
		}
		b, err := s.files.readThread(dir, tid, "syscall")
		if err != nil {
			continue
		}
		sc, ok := parseSyscall(b)
		if !ok || sc.nr < 0 {
			continue
		}
		info, ok := lookupSyscall(sc.nr)
		if !ok {
			continue
		}
		if info.kind == kindReadFD && len(reads) < maxThreadReads {
			reads = append(reads, threadRead{tid: tid, fd: int(int32(sc.args[0]))})
		}
		if d, abs, timed := s.files.timedWait(pid, info.name, sc); timed {
			out = append(out, Timer{PID: pid, TID: tid, Syscall: info.name, Timeout: d, Absolute: abs})
		}
	}
	return out, reads
}

// maxThreadReads caps the reads of other threads one process reports.
const maxThreadReads = 8

// ptmxTarget is what an fd of a PTY master points to.
const ptmxTarget = "/dev/ptmx"

// ptmxIndex reads which PTY a master fd is the master of, from
// /proc/PID/fdinfo/FD ("tty-index:\tN", Linux 4.16+).
func (p *procFiles) ptmxIndex(dir, fd int) (int, bool) {
	b, err := p.read(dir, "fdinfo", fd, 4096, false)
	if err != nil {
		return 0, false
	}
	_, rest, ok := bytes.Cut(b, []byte("tty-index:"))
	if !ok {
		return 0, false
	}
	if nl := bytes.IndexByte(rest, '\n'); nl >= 0 {
		rest = rest[:nl]
	}
	n, ok := atoi(bytes.TrimSpace(rest))
	return int(n), ok
}

// readThread reads /proc/PID/task/TID/name.
func (p *procFiles) readThread(dirfd, tid int, name string) ([]byte, error) {
	p.path = append(p.path[:0], "task/"...)
	p.path = strconv.AppendInt(p.path, int64(tid), 10)
	p.path = append(p.path, '/')
	p.path = append(p.path, name...)
	p.path = append(p.path, 0)
	return p.readPath(dirfd, &p.path[0], 4096, false)
}

// timerfdTarget is what an fd made by timerfd_create points to.
const timerfdTarget = "anon_inode:[timerfd]"

// timerfdLeft reads an armed timerfd's time left from /proc/PID/fdinfo/FD
// ("it_value: (29, 999812345)"): waiting on it without a timeout of its own
// (systemd, libevent with timerfds) still wakes at a set time. A disarmed
// one (0, 0) is no timer.
func (p *procFiles) timerfdLeft(dir, fd int) (time.Duration, bool) {
	b, err := p.read(dir, "fdinfo", fd, 4096, false)
	if err != nil {
		return 0, false
	}
	for len(b) > 0 {
		line := b
		if nl := bytes.IndexByte(b, '\n'); nl >= 0 {
			line, b = b[:nl], b[nl+1:]
		} else {
			b = nil
		}
		rest, ok := bytes.CutPrefix(line, []byte("it_value:"))
		if !ok {
			continue
		}
		rest = bytes.Trim(bytes.TrimSpace(rest), "()")
		sec, nsec, ok := bytes.Cut(rest, []byte(","))
		if !ok {
			return 0, false
		}
		s, ok1 := atoi(bytes.TrimSpace(sec))
		n, ok2 := atoi(bytes.TrimSpace(nsec))
		if !ok1 || !ok2 || s == 0 && n == 0 {
			return 0, false
		}
		return clampDuration(int64(s), int64(n)), true
	}
	return 0, false
}
