// Command hangdog-supervisor is the per-task supervisor process that hangdog
// starts for every command it runs. It is the same code as `hangdog
// __supervise`, linked without the CLI, the shell, the MCP server and any
// HTTP client, so it starts faster (2.9 ms against 6.1 ms for hangdog-full,
// 2.2 ms for an empty Go program; medians of 200 interleaved runs here) and
// stays small while its task runs.
// Installed next to hangdog, which finds it there; people never run it.
package main

import (
	"fmt"
	"os"

	"github.com/hangdog/hangdog/internal/hiddenarg"
	"github.com/hangdog/hangdog/supervisor"
)

func main() {
	if len(os.Args) != 2 || os.Args[1] != hiddenarg.Supervise {
		fmt.Fprintln(os.Stderr, "hangdog-supervisor is started by hangdog for each task, not by hand; run `hangdog run -- COMMAND` instead")
		os.Exit(2)
	}
	os.Exit(supervisor.Main())
}
