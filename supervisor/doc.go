// Package supervisor is the per-task supervisor process, and only that: it
// holds the PTY master and leads its session, starts the command as the
// slave's foreground process group, records every byte of output, reaps every descendant (it is a child
// subreaper), serves the task's control socket, checks the task (the
// watchdog's sampling loop), and applies actions — detach, kill, send,
// resize — whoever asks for them. Main is its entry point.
//
// Its files, by concern:
//   - supervise_linux.go: Main, the hand-over, start-up and run, which owns
//     every goroutine of the process
//   - start_linux.go: starting the command on the PTY
//   - output_linux.go: reading the PTY into output.log, the drain, the
//     output notices
//   - lifecycle_linux.go: reaping, killing, recording and announcing the end
//   - leftover_linux.go: keeping and reporting what the command left
//     running when it exited
//   - link_linux.go: the caller link (frames to the caller, its input,
//     resizes and stops)
//   - control_linux.go: the control socket's server, one case per proto.Op
//   - watch_linux.go: the check loop over supervisor/sampler and
//     supervisor/watchdog
//
// What it speaks is defined in supervisor/proto; the client side (starting
// a supervisor, following its link, calling its socket) is package taskctl.
// The caller and its supervisor talk over a socketpair inherited as fd 3, so
// a caller's death (even by SIGKILL) is seen at once as EOF; other processes
// reach a running task through its unix socket, which serves only its own
// uid.
package supervisor
