package watchctl

import (
	"fmt"
	"os"

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
	// hangdog-full's libraries query a terminal for its colours at
	// start-up and wait seconds for an answer a task's PTY never gives,
	// so it runs with TERM=dumb. It runs in the caller's directory, whose
	// project and settings are the watcher's. The runner announces why it
	// stops (a pause, an expiry, a decision): its task's clean exit would
	// be a second, empty piece of news.
	taskID, err := taskctl.StartBackground(s.store.Registry(), taskctl.Request{
		Argv: []string{"env", "TERM=dumb", exe, hiddenarg.Watch, id}, Owner: owner}, s.store.TaskLabel(id), true)
	if err != nil {
		return "", err
	}
	return taskID, s.store.SetTask(id, taskID)
}
