//go:build !unix

package receiver

// nofileLimit: no RLIMIT_NOFILE here; overloadLimits assumes a default.
func nofileLimit() uint64 { return 0 }
