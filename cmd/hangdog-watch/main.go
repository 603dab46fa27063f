// Command hangdog-watch is the home's watchers' runner: the one background
// task that checks every active watcher of a home (package watchctl/runner,
// the same code as `hangdog __watch`), linked without the CLI, the shell,
// the MCP server and the watcher service (no task starts, no fleet client,
// no approval pages): it runs for as long as a watcher is active, so it
// maps only what that needs (runner.Program). Where serve.sink is set it hands
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
