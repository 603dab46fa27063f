package tui

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/settings"
	"github.com/hangdog/hangdog/taskctl"
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
	// Prepare turns a typed command into a task spec; nil = DefaultPrepare.
	// The shell then marks it interactive and sizes it to the terminal.
	Prepare func(command, dir string) (taskctl.Spec, error)
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
	if o.Prepare == nil {
		o.Prepare = func(command, dir string) (taskctl.Spec, error) {
			return DefaultPrepare(command, dir, o.UserFile)
		}
	}
	return nil
}

// DefaultPrepare runs the command with bash -c in dir, in this process's
// environment, with the watchdog settings in force for dir right now, so an
// edit in the settings screen applies to the next command.
func DefaultPrepare(command, dir, userFile string) (taskctl.Spec, error) {
	st, err := settings.Load(settings.Options{Dir: dir, UserFile: userFile})
	if err != nil {
		return taskctl.Spec{}, err
	}
	return taskctl.Spec{
		Command: command, Shell: true, Cwd: dir, Env: os.Environ(),
		Mode: bgtasks.Foreground, Interactive: true, Watchdog: st.Watchdog(), KeepEnded: st.KeepEnded(),
	}, nil
}
