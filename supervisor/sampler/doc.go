// Package sampler owns reading one task's process tree from Linux /proc: which
// processes descend from the supervisor, what each is doing (CPU, I/O, state,
// blocking syscall and the fd it waits on, sockets) and what the task's PTY is
// doing (foreground process group, line/secret/raw mode, whether someone is
// blocked reading it). It keeps the previous sample so that every counter is a
// delta over the window between two samples.
//
// The walk starts at the supervisor and follows /proc/PID/task/TID/children
// down the tree, so the cost depends on the size of the task's tree, never on
// how many other processes run on the machine. Those lists may be inaccurate
// while the tree changes (proc(5)), so a sample that misses a live member of
// the last one finds the tree again from every process's parent, or says it
// is incomplete (complete_linux.go): a sample is complete or it is not an
// observation.
package sampler
