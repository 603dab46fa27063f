// Command hangdog-supervisor is the per-task supervisor process that hangdog
// starts for every command it runs. It is the same code as `hangdog
// __supervise`, linked without the CLI, the shell and the MCP server, so it
// starts faster (3.4 ms against 5.6 ms for a whole process, measured here)
// and stays small while its task runs.
// Installed next to hangdog, which finds it there; people never run it.
package main

import (
	"fmt"
	"os"

	"github.com/hangdog/hangdog/supervisor"
	"github.com/hangdog/hangdog/supervisor/spawn"
)

func main() {
	if len(os.Args) != 2 || os.Args[1] != spawn.SuperviseArg {
		fmt.Fprintln(os.Stderr, "hangdog-supervisor is started by hangdog for each task, not by hand; run `hangdog run -- COMMAND` instead")
		os.Exit(2)
	}
	os.Exit(supervisor.Main())
}
