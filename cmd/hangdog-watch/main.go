// Command hangdog-watch is the home's watchers' runner: the one background
// task that checks every active watcher of a home (watchctl.RunHome, the
// same code as `hangdog __watch`), linked without the CLI, the shell and
// the MCP server: it runs for as long as a watcher is active, and keeps
// about 12.5 MB resident with 50 watchers where hangdog-full kept 20
// (docs/benchmarks.md, "Idle watchers"). Installed next to hangdog, whose watcher service
// starts it; people never run it.
package main

import (
	"os"

	"github.com/hangdog/hangdog/watchctl"
)

func main() {
	os.Exit(watchctl.Main(os.Args[1:]))
}
