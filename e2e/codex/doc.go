// Package codex holds an end-to-end test of `hangdog mcp` under the real
// OpenAI Codex CLI (@openai/codex, pinned), driven offline: Codex's model
// provider is pointed at a scripted stand-in for the Responses API on
// 127.0.0.1, which sends the scenario's calls of hangdog's bash tool and
// records the function_call_output Codex sends back — what a model would
// see. The test skips when the CLI is not installed (.ci/install-agent-clis
// installs it from npm).
package codex
