// Package cchook is hangdog's side of Claude Code's hooks: `hangdog hook`
// reads the JSON Claude Code writes on stdin and answers for SessionStart,
// PreToolUse (Bash and mcp__hangdog__bash), PostToolUse, Stop and
// SessionEnd, and `hangdog run --claude-code` presents a supervised Bash
// call the way Claude Code's own Bash tool would show it; `hangdog notify`
// takes the same news, one line per event, for the plugin's monitor.
//
// It owns a Claude Code session's small record (its tasks, the news the MCP
// server already told, its MCP cwd) under <home>/claude-sessions/<key>/, the
// permission rules as Claude Code evaluates them for Bash, and the words the
// model reads. It is a presenter over existing services: tasks run through
// taskctl, news comes from the session's event consumer in bgtasks (read
// from its cursor, so each hook call costs what is new), and a session's end
// is `hangdog bg end-session`, the one end for tasks, watchers and links.
package cchook
