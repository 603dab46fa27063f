// Package mcpserver owns hangdog's Model Context Protocol server: the tools an
// AI agent calls instead of its own shell tool (bash, bg_tasks, bg_logs,
// bg_send, bg_wait, bg_kill, bg_detach), their schemas and descriptions, the
// instructions that tell the model what hangdog does for it, the output limit
// of a result (the shaping itself is taskctl.Shape), and the delivery of
// background-task events: each session is a consumer of the per-user event
// log, its undelivered events are put at the top of its next tool result,
// and its cursor moves only once that result has been written. It also owns what a session keeps between calls:
// its shell's cwd (and exports), the supervisor it keeps started for its
// next bash call (spare.go), and what a cancelled call's command gets
// (cancel.go: detached when the client gave up waiting, else stopped).
package mcpserver
