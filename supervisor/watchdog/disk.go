package watchdog

import "time"

// Principle (issue 23, the last late case): disk I/O is work when it comes
// at the rate of work, not a few pages now and then.
//
// The kernel charges a process for the filesystem's own blocks as well as
// for its data: making, removing or closing the last reference to a file
// reads and dirties directory, inode and bitmap blocks (on ext4 without a
// journal they are charged to the process, a page each time a block is
// first dirtied after writeback), and starting a program pages its code in.
// Tcl's exec keeps each child's stderr in a temp file it makes and removes
// in /tmp, so an endless `exec sleep 1` loop, which writes nothing, showed
// 4-20 KiB of write_bytes every few seconds; read as "a little I/O", that
// was progress and broke the idle streak
// (scripts/scenarios/results/r4c-tcl-io-trace.txt: the bytes were tclsh's
// own, not its reaped children's). Which process was charged, or whether a
// reaped child's counters were folded into its parent's, does not tell
// bookkeeping from work; the amount does. Bookkeeping comes a page or a few
// at a time: 20 KiB in one second at most for the Tcl loop, and at most
// 120 KiB in a 3 s window (40 KiB/s) for a shell loop making and removing
// ten files a second. Work that shows as disk I/O rather than CPU waits on
// the disk and moves far more: `dd` of 4 KiB synchronous writes, the
// slowest disk work in the corpora, moves about 3 MB/s here. So the disk
// I/O of a sample or a window is work when it averages at least
// diskWorkPerSecond over its span; below that it counts as nothing, and the
// evidence names it as the filesystem's bookkeeping.

// diskWorkPerSecond is the rate of disk I/O (read_bytes plus write_bytes)
// at which it counts as work.
const diskWorkPerSecond = 64 << 10

// diskRateSpan is the shortest span a rate of disk I/O is measured over.
// The kernel charges a metadata page to the process that first dirties it
// after it was written back, and writes back every 5 s by default
// (vm.dirty_writeback_centisecs): bookkeeping comes as one burst of its few
// pages a period, which a 1 s sample alone reads as a rate of work (72 KiB
// in one sample for a shell loop making and removing ten files a second, on
// a machine at a load of 9; 24 KiB/s over its 3 s window).
const diskRateSpan = 5 * time.Second

// diskWork is the part of bytes of disk I/O over span that is work: all of
// it at diskWorkPerSecond or more over span, or over diskRateSpan if span is
// shorter; none below.
func diskWork(bytes int64, span time.Duration) int64 {
	span = max(span, diskRateSpan)
	if bytes <= 0 || float64(bytes) < diskWorkPerSecond*span.Seconds() {
		return 0
	}
	return bytes
}
