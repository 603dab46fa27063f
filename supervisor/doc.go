// Package supervisor owns one task's life: the per-task supervisor process
// that holds the PTY master, starts the command as a session leader on the
// slave, records every byte of output, reaps every descendant (it is a child
// subreaper), serves the task's control socket, and applies actions — detach,
// kill, send, resize — whoever asks for them. It also holds the caller's side:
// Start spawns a supervisor and returns a Link that streams its output.
//
// The caller and its supervisor talk over a socketpair inherited as fd 3, so a
// caller's death (even by SIGKILL) is seen at once as EOF; other processes
// reach a running task through its unix socket, which serves only its own uid.
package supervisor
