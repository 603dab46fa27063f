// Package supervisor is the per-task supervisor process, and only that: it
// holds the PTY master and leads its session, marks itself as a task's
// (peerproc.MarkTask, inherited by everything the command starts), starts
// the command as the slave's foreground process group, records every byte of output (straight
// to the caller when the disk is full), reaps every descendant (it is a
// child subreaper), keeps and reports what the command leaves running,
// serves the task's control socket, checks the task (the watchdog's
// sampling loop), and applies actions — detach, kill, send, resize —
// whoever asks for them. Main is its entry point and owns every goroutine
// of the process; each concern has a file named for it.
//
// What it speaks is defined in supervisor/proto; the client side (starting
// a supervisor, following its link, calling its socket) is package taskctl.
// The caller and its supervisor talk over a socketpair inherited as fd 3, so
// a caller's death (even by SIGKILL) is seen at once as EOF; other processes
// reach a running task through its unix socket, which serves only its own
// uid.
package supervisor
