//go:build linux

package supervisor

import (
	"bufio"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// trimImage drops the pages of the hangdog binary that start-up touched
// (package initialisers of the CLI, the shell, the MCP server, which a
// supervisor never runs again) from this process's resident set, and turns
// off fault-around for them, so the idle supervisor keeps only the code it
// runs. Only read-only mappings of the executable are touched: those pages
// are clean copies of the file, and a later access maps them back from the
// page cache without I/O.
func trimImage() {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return
	}
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[5] != exe || strings.Contains(fields[1], "w") {
			continue
		}
		lo, hi, ok := strings.Cut(fields[0], "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil || end <= start {
			continue
		}
		// The raw call takes the addresses as they are in /proc/self/maps;
		// unix.Madvise would want a Go slice over memory Go does not own.
		for _, advice := range []uintptr{unix.MADV_RANDOM, unix.MADV_DONTNEED} {
			unix.Syscall(unix.SYS_MADVISE, uintptr(start), uintptr(end-start), advice)
		}
	}
}
