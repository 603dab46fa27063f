// Package mcpserver owns hangdog's Model Context Protocol server: the tools
// an AI agent calls instead of its own shell tool — bash, the bg_* tools for
// background tasks, the watch_* tools for watchers and trigger links, and
// approve_create — with their schemas and descriptions, the instructions that
// tell the model what hangdog does for it, and the output limit of a result
// (the shaping itself is taskctl.Shape). It delivers the event log to a
// session: each session is a consumer, its undelivered events go at the top
// of its next tool result, and its cursor moves only once that result has
// been written. It also owns what a session keeps between calls: its shell's
// cwd (and exports), the supervisor kept started for its next bash call, and
// what a cancelled call's command gets (detached when the client gave up
// waiting, else stopped), and what its end does to the tasks, watchers and
// links it started. The watch and approve tools present the watcher service
// (watchctl), as the task tools present taskctl.
package mcpserver
