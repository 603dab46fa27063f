// Package proto owns the contract between a task's supervisor process and
// its clients, and nothing else: the frames on the caller link (the
// socketpair a caller shares with the supervisor it started), the task it
// hands over first (Handover, binstruct-encoded), and the requests and
// replies on a running task's control socket (Request, Reply, one Op per
// operation).
//
// The supervisor (package supervisor) serves this contract and the client
// (package taskctl) speaks it; neither imports the other. A new operation
// has three places: its Op and payload here, its handler in supervisor's
// control server, its call in taskctl.
//
// It imports only what the supervisor links anyway (no net/http), so it
// costs a supervisor's start-up nothing.
package proto
