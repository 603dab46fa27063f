//go:build linux

package sampler

import "time"

// account turns the counters of this sample and the previous one into the
// deltas of every process and of the tree.
//
// The kernel adds a child's CPU times (cutime) and I/O to its parent when the
// parent reaps it. Counting the parent's cutime catches short-lived children
// that lived and died between two samples (a build, a loop of greps); taking
// off what the previous sample already saw of each vanished child keeps the
// parent from counting it twice.
func (s *Sampler) account(tree *Tree, notes []evidence) {
	hz := clockTicks()
	window := tree.Window
	boot := sinceBoot()
	var ticks float64
	var total ioCounters

	for pid, rec := range s.cur {
		prev, seen := s.prev[pid]
		same := seen && prev.start == rec.start
		var own, child float64
		var io ioCounters
		if same {
			own = float64(rec.ticks - min(prev.ticks, rec.ticks))
			child = float64(rec.childTicks - min(prev.childTicks, rec.childTicks))
			io = rec.io.sub(prev.io)
		} else {
			// First seen: count its whole life, prorated to the window when
			// it started before the window (the first sample, or a process
			// the previous walk missed).
			f := 1.0
			if age := boot - ticksToDuration(rec.start, hz); window > 0 && age > window {
				f = window.Seconds() / age.Seconds()
			}
			own, child = f*float64(rec.ticks), f*float64(rec.childTicks)
			io = rec.io.scale(f)
		}
		if rec.idx < 0 { // a zombie: its last work still counts for the tree
			ticks += own + child
			total = total.add(io)
			continue
		}
		tree.Procs[rec.idx].New = !same
		tree.Procs[rec.idx].Age = max(boot-ticksToDuration(rec.start, hz), 0)
		notes[rec.idx].ownTicks, notes[rec.idx].childTicks, notes[rec.idx].io = own, child, io
	}

	for pid, prev := range s.prev {
		if cur, ok := s.cur[pid]; ok && cur.start == prev.start {
			continue
		}
		if parent, ok := s.cur[prev.ppid]; ok && parent.idx >= 0 {
			s.debts = append(s.debts, reapDebt{
				parent: prev.ppid, parentStart: parent.start,
				ticks: float64(prev.ticks + prev.childTicks), io: prev.io,
			})
		}
	}
	s.settleDebts(notes)

	for i := range tree.Procs {
		p, n := &tree.Procs[i], &notes[i]
		span := window
		if age := boot - ticksToDuration(p.StartTicks, hz); p.New && age > 0 && age < span {
			span = age
		}
		if span > 0 {
			p.CPUPercent = n.ownTicks / hz / span.Seconds() * 100
		}
		p.RChar, p.WChar, p.ReadBytes, p.WriteBytes = n.io.rchar, n.io.wchar, n.io.readBytes, n.io.writeBytes
		ticks += n.ownTicks + n.childTicks
		total = total.add(n.io)
		switch {
		case p.State == 'R':
			tree.AnyRunning = true
		case p.State == 'D' && n.io != (ioCounters{}):
			tree.AnyRunning = true
		}
		if p.State == 'S' && (n.syscallKind == kindTimer || p.WaitTimed ||
			(p.Syscall == SyscallUnknown && (p.Wchan == "hrtimer_nanosleep" || p.Wchan == "do_nanosleep"))) {
			tree.TimerSleep = true
			if len(tree.Timers) < maxTimers {
				t := Timer{PID: p.PID, TID: p.PID, Comm: p.Comm, Syscall: p.SyscallName, Timeout: p.WaitTimeout}
				if n.det != nil {
					t.Absolute = n.det.absolute
				}
				if t.Syscall == "" {
					t.Syscall = p.Wchan
				}
				tree.Timers = append(tree.Timers, t)
			} else {
				tree.TimersCapped = true
			}
		}
		if n.det != nil && p.State != 'Z' {
			for _, t := range n.det.threadTimers {
				tree.TimerSleep = true
				if len(tree.Timers) < maxTimers {
					t.Comm = p.Comm
					tree.Timers = append(tree.Timers, t)
				} else {
					tree.TimersCapped = true
				}
			}
		}
	}
	if window > 0 {
		tree.CPUPercent = ticks / hz / window.Seconds() * 100
	}
	tree.RChar, tree.WChar, tree.ReadBytes, tree.WriteBytes = total.rchar, total.wchar, total.readBytes, total.writeBytes
}

// reapDebt is what a vanished child had already been counted for, to be
// taken off its parent's counters when the kernel folds the child into them.
//
// The parent's counters are read before its children are looked at, so when
// a child is seen gone the fold has happened either before that read (the
// jump is in this window) or just after it (the jump is in the next one).
// A counter is settled in the first window whose delta can hold it; a debt
// no window could hold in two tries is dropped (the parent ignored SIGCHLD
// and the kernel reaped the child without folding it).
type reapDebt struct {
	parent      int
	parentStart uint64
	ticks       float64
	io          ioCounters
	tries       int
}

func (s *Sampler) settleDebts(notes []evidence) {
	kept := s.debts[:0]
	for _, d := range s.debts {
		rec, ok := s.cur[d.parent]
		if !ok || rec.start != d.parentStart || rec.idx < 0 {
			continue
		}
		n := &notes[rec.idx]
		settle := func(delta *float64, debt *float64) {
			if *debt > 0 && *delta >= *debt {
				*delta -= *debt
				*debt = 0
			}
		}
		settleInt := func(delta, debt *int64) {
			if *debt > 0 && *delta >= *debt {
				*delta -= *debt
				*debt = 0
			}
		}
		settle(&n.childTicks, &d.ticks)
		settleInt(&n.io.rchar, &d.io.rchar)
		settleInt(&n.io.wchar, &d.io.wchar)
		settleInt(&n.io.readBytes, &d.io.readBytes)
		settleInt(&n.io.writeBytes, &d.io.writeBytes)
		d.tries++
		if (d.ticks > 0 || d.io != ioCounters{}) && d.tries < 2 {
			kept = append(kept, d)
		}
	}
	s.debts = kept
}

func ticksToDuration(ticks uint64, hz float64) time.Duration {
	return time.Duration(float64(ticks) / hz * float64(time.Second))
}

func (a ioCounters) add(b ioCounters) ioCounters {
	return ioCounters{a.rchar + b.rchar, a.wchar + b.wchar, a.readBytes + b.readBytes, a.writeBytes + b.writeBytes}
}

func (a ioCounters) scale(f float64) ioCounters {
	return ioCounters{
		int64(float64(a.rchar) * f), int64(float64(a.wchar) * f),
		int64(float64(a.readBytes) * f), int64(float64(a.writeBytes) * f),
	}
}
