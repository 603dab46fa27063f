//go:build linux

package sampler

import (
	"encoding/binary"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// clockTicks is USER_HZ, the unit of /proc/PID/stat times, from the
// AT_CLKTCK auxv entry. It is 100 on every mainstream Linux build, which is
// also the fallback.
var clockTicks = sync.OnceValue(func() float64 {
	const atClkTck = 17
	auxv, err := os.ReadFile("/proc/self/auxv")
	if err != nil {
		return 100
	}
	for i := 0; i+16 <= len(auxv); i += 16 {
		key := binary.NativeEndian.Uint64(auxv[i:])
		val := binary.NativeEndian.Uint64(auxv[i+8:])
		if key == atClkTck && val > 0 {
			return float64(val)
		}
	}
	return 100
})

// sinceBoot is the clock /proc/PID/stat start times count from.
func sinceBoot() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_BOOTTIME, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}
