package testbin

import (
	"fmt"
	"os"
	"runtime"
)

// LoadScale is the 1-minute load average per core, at least 1: a test's
// time limits grow with it on a shared machine, so a verdict about
// correctness is not one about how busy the machine was.
func LoadScale() float64 {
	b, _ := os.ReadFile("/proc/loadavg")
	var load float64
	fmt.Sscan(string(b), &load)
	return max(1, load/float64(runtime.NumCPU()))
}
