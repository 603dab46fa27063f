//go:build linux

package bgtasks

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// procStat is what reconciling needs from /proc/PID/stat.
type procStat struct {
	state      byte   // R, S, D, Z, X…
	startTicks uint64 // field 22: start time in clock ticks after boot
}

// ProcStartTicks returns field 22 of /proc/PID/stat, the process start time
// in clock ticks since boot. Paired with the PID it names one process for
// good, because a recycled PID has a different start time.
func ProcStartTicks(pid int) (uint64, error) {
	st, err := readProcStat(pid)
	if err != nil {
		return 0, err
	}
	return st.startTicks, nil
}

func readProcStat(pid int) (procStat, error) {
	if pid <= 0 {
		return procStat{}, fmt.Errorf("read stat of pid %d: %w", pid, os.ErrNotExist)
	}
	path := "/proc/" + strconv.Itoa(pid) + "/stat"
	b, err := os.ReadFile(path)
	if err != nil {
		return procStat{}, fmt.Errorf("read %s: %w", path, err)
	}
	return parseProcStat(b, path)
}

// parseProcStat splits after the last ')': field 2, the command name, is
// free text that may itself contain spaces and parentheses.
func parseProcStat(b []byte, path string) (procStat, error) {
	end := bytes.LastIndexByte(b, ')')
	if end < 0 {
		return procStat{}, fmt.Errorf("parse %s: no ')' after the command name", path)
	}
	fields := bytes.Fields(b[end+1:])
	// fields[0] is field 3 (state), so field 22 is fields[19].
	if len(fields) < 20 || len(fields[0]) != 1 {
		return procStat{}, fmt.Errorf("parse %s: %d fields after the command name, want at least 20", path, len(fields))
	}
	ticks, err := strconv.ParseUint(string(fields[19]), 10, 64)
	if err != nil {
		return procStat{}, fmt.Errorf("parse %s start time: %w", path, err)
	}
	return procStat{state: fields[0][0], startTicks: ticks}, nil
}
