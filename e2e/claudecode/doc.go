// Package claudecode holds end-to-end tests of hangdog's Claude Code recipe
// (scripts/claude-code: the hooks), of `hangdog mcp` and of `hangdog
// mcp-proxy` in front of another MCP server, driven by the real
// Claude Code CLI (@anthropic-ai/claude-code, pinned) against a scripted
// stand-in for the Anthropic Messages API on 127.0.0.1. The stand-in plays
// the model: it sends the tool calls of a scenario and records the
// tool_result text Claude Code sends back, which is exactly what a model
// would see. Plain Claude Code (its own Bash tool) runs the same scenarios as
// the control. The tests skip when the CLI is not installed (.ci/run installs
// it from npm).
package claudecode
