package main

// The shell, the settings screen and the MCP server link heavy packages
// (bubbletea, lipgloss, the MCP SDK) whose start-up every `hangdog run`
// would otherwise pay. They are built into hangdog-full; the lite hangdog
// that `make install` puts on PATH (built with -tags lite) lists them too
// and hands them over to hangdog-full, which sits next to it.
const (
	shellShort    = "Open the interactive shell (also: hangdog with no arguments)"
	settingsShort = "Edit the watchdog settings on a full screen"
	mcpProxyShort = "Run an MCP server behind the watchdog: a stuck tool call is warned about or aborted (watchdog.otherTools)"
	mcpShort      = "Serve hangdog's tools (supervised bash, background tasks, watchers, approval links) to an AI agent (MCP over stdio)"
)
