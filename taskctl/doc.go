// Package taskctl is the client side of a task, for every front end (the
// CLI, the shell, the MCP server): it resolves what to run from settings,
// starts a supervisor (or adopts one started early), follows the task over
// its caller link, acts on running tasks through their control sockets,
// reads what running tasks cost for listings (TreeUsage), and shapes what a
// caller is shown of a task's output (Shape: head and tail with the cut
// marked, a full-screen program's last frame as rows of text).
//
// It speaks the contract in supervisor/proto and never imports the
// supervisor process's package, so a front end links none of the check
// loop. Front ends present what it reports; they do not repeat a task's
// life themselves.
package taskctl
