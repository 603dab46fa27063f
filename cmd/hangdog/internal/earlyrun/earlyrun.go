// Package earlyrun starts the supervisor of a `hangdog run` (or `bg run`)
// from its package initialiser, before the CLI's heavier packages (cobra,
// viper and theirs) initialise and before main parses anything. The
// supervisor's own start-up then overlaps with the CLI's, which is most of
// what a short command costs; the run adopts it with Take.
//
// Go initialises a package once its imports are, choosing among the ready
// ones in import-path order, so this one runs right after os: it must import
// nothing but os and the leaf package spawn. A test holds it to that.
package earlyrun

import (
	"os"

	"github.com/hangdog/hangdog/supervisor/spawn"
)

var (
	early spawn.Process // Link is nil unless the start succeeded
	// spawned is closed once the start above has been tried. The fork runs
	// on a goroutine of its own: forking suspends the forking thread until
	// the child has exec'd the supervisor, and the package initialisers go
	// on meanwhile on this one.
	spawned chan struct{}
)

func init() {
	if !startsTask(os.Args[1:]) {
		return
	}
	spawned = make(chan struct{})
	go func() {
		defer close(spawned)
		exe, err := spawn.Binary()
		if err != nil {
			return // the run starts its supervisor itself and reports the error
		}
		if p, err := spawn.Start(exe, nil); err == nil {
			early = p
		}
	}()
}

// startsTask says whether the arguments ask for a command to run: `run` or
// `bg run`, without a help flag before `--`. A guess that is wrong either
// way costs only time: an unused supervisor exits when this process does,
// and a run that finds none starts one.
func startsTask(args []string) bool {
	switch {
	case len(args) >= 1 && args[0] == "run":
		args = args[1:]
	case len(args) >= 2 && args[0] == "bg" && args[1] == "run":
		args = args[2:]
	default:
		return false
	}
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "-h" || a == "--help" || len(a) > 7 && a[:7] == "--help=" {
			return false
		}
	}
	return true
}

// Take hands over the supervisor started at initialisation, once.
func Take() (spawn.Process, bool) {
	if spawned == nil {
		return spawn.Process{}, false
	}
	<-spawned
	p := early
	early = spawn.Process{}
	return p, p.Link != nil
}
