//go:build !linux

package bgtasks

import (
	"errors"
	"fmt"
)

type procStat struct {
	state      byte
	startTicks uint64
}

// ProcStartTicks needs Linux /proc; elsewhere it reports errors.ErrUnsupported.
func ProcStartTicks(pid int) (uint64, error) {
	_, err := readProcStat(pid)
	return 0, err
}

func readProcStat(pid int) (procStat, error) {
	return procStat{}, fmt.Errorf("read start time of pid %d: %w: needs Linux /proc", pid, errors.ErrUnsupported)
}
