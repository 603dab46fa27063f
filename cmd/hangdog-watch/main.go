// Command hangdog-watch is the home's watchers' runner: the one background
// task that checks every active watcher of a home (package watchctl/runner,
// the same code as `hangdog __watch`), linked without the CLI, the shell,
// the MCP server and the watcher service (no task starts, no fleet client,
// no approval pages): it runs for as long as a watcher is active, and keeps
// about 11 MB resident with 50 watchers where hangdog-full kept 20
// (docs/benchmarks.md, "Idle watchers"). Where serve.sink is set it hands
// itself over to hangdog's __watch, which links the fleet's client.
// Installed next to hangdog, whose watcher service starts it; people never
// run it.
package main

import (
	"os"

	"github.com/hangdog/hangdog/watchctl/runner"
)

func main() {
	os.Exit(runner.Main(os.Args[1:], runner.Options{}))
}
