// Package proto owns the contract between a task's supervisor process and
// its clients, and nothing else: the frames on the caller link (the
// socketpair a caller shares with the supervisor it started), the task it
// hands over first (Handover, binstruct-encoded, fingerprinted so a
// supervisor of another build refuses it), and the requests and replies on
// a running task's control socket: one request type per operation
// (StatusRequest, DetachRequest, KillRequest, SendRequest, ResizeRequest),
// each bound to its reply's type by Request[R], served through Server and
// Serve, asked with EncodeRequest and DecodeReply.
//
// The supervisor (package supervisor) serves this contract and the client
// (package taskctl) speaks it; neither imports the other. A new operation
// has three places: its request type here (its Op, its reply's slot, its
// Server method and Serve's case), its handler (the supervisor's method of
// that name, which the compiler then asks for), and its call in taskctl.
//
// The wire types are its own, not the task's records on disk: Task and
// Result are the wire forms of bgtasks.Meta and bgtasks.Result, converted
// at the two ends, so the records and the wire change apart. Only the
// words for a task's mode and state (internal/taskstate) are shared.
//
// It imports only what the supervisor links anyway (no net/http), so it
// costs a supervisor's start-up nothing.
package proto
