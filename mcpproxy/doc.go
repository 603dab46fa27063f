// Package mcpproxy owns the watchdog for an agent's MCP tools: a stdio MCP
// server (`hangdog mcp-proxy -- COMMAND…`) that starts the real server with
// its stdin and stdout as pipes and relays every message both ways byte for
// byte, watching each tools/call in flight.
//
// It parses only what it must: a tools/call request (its id, tool name and
// progress token), the response to it, notifications/progress, a
// notifications/cancelled from the client, and requests the server sends the
// client (a server waiting for the client's answer is not stuck). A call is
// judged with the watchdog the bash tool uses (supervisor/sampler on the
// server's process tree, the server's stderr through supervisor/activity,
// jev's judge and supervisor/watchdog's rules), its clock restarted by every
// progress notification for it. What a call judged stuck gets is
// watchdog.otherTools: warn (a log notification to the client, and the
// warning appended to its eventual result) or abort-turn (the server is told
// notifications/cancelled, the client answered at once with an error result,
// the late response dropped); off relays untouched and samples nothing.
//
// The proxied server is a background task in the registry (bgtasks) for as
// long as it runs, so `hangdog bg ls` and the shell's status bar show it, its
// stderr is the task's output, its control socket answers status and kill
// as a supervisor's does (supervisor/proto), its calls in flight are
// recorded on it while they are watched (bgtasks.Registry.WriteCalls, so
// listings and the shell's status bar show them), and a stuck call's
// warning is one event in the event log, written once per call.
package mcpproxy
