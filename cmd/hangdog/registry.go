package main

import "github.com/hangdog/hangdog/bgtasks"

// openRegistry opens the registry at the home hangdog resolves from the
// environment (HANGDOG_HOME, XDG_STATE_HOME, ~/.local/state).
func openRegistry() (*bgtasks.Registry, error) {
	h, err := bgtasks.Home()
	if err != nil {
		return nil, err
	}
	return bgtasks.Open(h)
}
