package watchctl

import (
	"fmt"
	"os"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/internal/hiddenarg"
	"github.com/hangdog/hangdog/taskctl"
)

// startRunner starts watcher id's runner (hangdog __watch ID) as a
// background task of owner's, as `bg run` would start it, and records the
// task in the watcher's state. The task is the owner's, so it is listed
// with the session's tasks and ends with them (tasks.onSessionEnd).
func (s *Service) startRunner(id, owner string) (string, error) {
	exe := s.exe
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return "", fmt.Errorf("find hangdog's own path: %w", err)
		}
	}
	reg := s.store.Registry()
	pending, err := taskctl.Prestart(nil)
	if err != nil {
		return "", err
	}
	// hangdog-full's libraries query a terminal for its colours at
	// start-up and wait seconds for an answer a task's PTY never gives,
	// so it runs with TERM=dumb. It runs in the caller's directory, whose
	// project and settings are the watcher's.
	spec, err := taskctl.Resolve(taskctl.Request{Argv: []string{"env", "TERM=dumb", exe, hiddenarg.Watch, id},
		Mode: bgtasks.Background, Owner: owner})
	if err != nil {
		pending.Cancel()
		return "", err
	}
	// The runner announces why it stops (a pause, an expiry, a decision);
	// its task's clean exit would be a second, empty piece of news.
	spec.QuietEnd = true
	link, err := pending.Start(reg, spec)
	if err != nil {
		return "", err
	}
	defer link.Close()
	ev, err := link.Next()
	if err != nil {
		return "", fmt.Errorf("task %s: %w", link.TaskID, err)
	}
	if ev.Kind == taskctl.EventFailed {
		return "", fmt.Errorf("task %s could not start: %s", link.TaskID, ev.Message)
	}
	return link.TaskID, s.store.SetTask(id, link.TaskID)
}
