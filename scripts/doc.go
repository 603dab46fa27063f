// Package scripts holds hangdog's helper scripts: install, benchmarks, the
// harness recipes (Claude Code hooks, MCP client configs, a plain
// `hangdog run --json` harness), the MCP Inspector end-to-end check, the
// release build and its install checks (dist.sh, check-dist.sh), in
// testsummary the program `make test` reports through and, in
// bench-watchers/refsched, the single-scheduler reference
// bench-watchers.sh measures idle watchers against. It has no Go code
// of its own; its tests run the recipes against the built binary, as a
// harness would.
package scripts
