package tui

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/settings"
)

// Options configure a shell.
type Options struct {
	Registry *bgtasks.Registry // required
	Dir      string            // the starting directory; "" = the working directory
	// HistoryFile persists the prompt's history; "" = <home>/shell_history,
	// "-" = keep none.
	HistoryFile string
	// DebugLog is the watchdog's debug log that /log follows; "" =
	// <home>/logs/watchdog.log, where supervisors write one line per check.
	DebugLog string
	// UserFile is the user settings file; "" = settings.UserFile().
	UserFile string
}

func (o *Options) fill() error {
	if o.Registry == nil {
		return fmt.Errorf("the shell needs a task registry")
	}
	if o.Dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return fmt.Errorf("find the current directory: %w", err)
		}
		o.Dir = wd
	}
	if o.HistoryFile == "" {
		o.HistoryFile = filepath.Join(o.Registry.Home(), "shell_history")
	}
	if o.HistoryFile == "-" {
		o.HistoryFile = ""
	}
	if o.DebugLog == "" {
		o.DebugLog = o.Registry.CheckLogPath()
	}
	if o.UserFile == "" {
		o.UserFile = settings.UserFile()
	}
	return nil
}
