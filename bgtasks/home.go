package bgtasks

import (
	"fmt"
	"os"
	"path/filepath"
)

// Home returns the directory that holds the registry: $HANGDOG_HOME, else
// $XDG_STATE_HOME/hangdog, else ~/.local/state/hangdog. A relative
// XDG_STATE_HOME is ignored, as the XDG spec asks.
func Home() (string, error) {
	if h := os.Getenv("HANGDOG_HOME"); h != "" {
		abs, err := filepath.Abs(h)
		if err != nil {
			return "", fmt.Errorf("resolve HANGDOG_HOME %q: %w", h, err)
		}
		return abs, nil
	}
	if x := os.Getenv("XDG_STATE_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "hangdog"), nil
	}
	user, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find a home for hangdog: %w; set HANGDOG_HOME to a writable directory", err)
	}
	return filepath.Join(user, ".local", "state", "hangdog"), nil
}
