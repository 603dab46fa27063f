// Package faults is hangdog's fault suite: end-to-end tests that drive the
// built binaries into the faults users meet — a full disk, racing processes,
// bad settings, long paths, malformed input, corrupt files, real signals —
// and check that nothing is lost and every task stays reachable. It has no
// code of its own; `make test` runs it with the rest.
package faults
