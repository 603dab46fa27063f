package main

import (
	"fmt"
	"os"

	"github.com/hangdog/hangdog/settings"
)

// loadRunSettings loads the settings a command runs with. A bad entry in a
// config file or the environment is left out with a warning on w, never a
// reason not to run: otherwise one bad key in a cloned repository's
// .hangdog.yaml would stop every command, an agent's bash tool included.
// Bad --set flags are still refused.
func loadRunSettings(w *os.File, opts settings.Options) (*settings.Settings, error) {
	opts.KeepGoing = true
	st, err := settings.Load(opts)
	if err != nil {
		return nil, err
	}
	for _, e := range st.Warnings() {
		fmt.Fprintf(w, "hangdog: warning: %v\n  that setting is left out and the command runs with the others; fix or remove it (`hangdog config list` shows what applies)\n", e)
	}
	warnRemote(w, st)
	return st, nil
}
