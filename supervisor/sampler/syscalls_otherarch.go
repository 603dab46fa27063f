//go:build linux && !amd64 && !arm64

package sampler

// syscallTable is empty on other architectures: syscalls stay numbers, and
// the watchdog falls back to wchan for what a process waits on.
var syscallTable = map[int]syscallInfo{}
