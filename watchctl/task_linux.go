package watchctl

import (
	"fmt"

	"github.com/hangdog/hangdog/taskctl"
)

// RunnerLabel is how the home's runner task is listed (`bg ls`, the
// shell's /bg); `hangdog watch ls` lists the watchers it runs.
const RunnerLabel = "watch runner: every active watcher of this home (hangdog watch ls)"

// ensureRunner makes sure the home's runner (runner.Program) runs and
// returns its task id: the one recorded, if its task is alive, or a new
// background task. The check and the start are one step under the
// runner's start lock, which a runner leaving (no watcher active) takes
// too, so a watcher made meanwhile is never left without a runner.
//
// The runner's task belongs to the home, not to a session or a project
// (taskctl.Request.HomeWide): every session's `bg ls` lists it, and no
// session's end kills it; a session's watchers end with it through
// EndSession, which pauses them.
func (s *Service) ensureRunner() (string, error) {
	argv, err := s.runnerArgv()
	if err != nil {
		return "", err
	}
	var taskID string
	err = s.store.WithRunnerStart(func() error {
		if id := s.store.RunnerTask(); id != "" && s.taskAlive(id) {
			taskID = id
			return nil
		}
		// The runner announces why a watcher stops (a pause, an expiry,
		// a decision): its task's clean exit would be a second, empty
		// piece of news.
		// Nor is the runner the watchdog's to judge: it waits between
		// checks by design, and with watchdog.watchBgTasks on its
		// supervisor would sample its processes every second (about 11
		// wake-ups a second, measured) and could take it for stuck.
		id, err := taskctl.StartBackground(s.store.Registry(), taskctl.Request{
			Argv: argv, HomeWide: true, Sets: map[string]string{"watchdog.enabled": "false"}}, RunnerLabel, true)
		if err != nil {
			return fmt.Errorf("start the watchers' runner: %w", err)
		}
		taskID = id
		return s.store.SetRunnerTask(id)
	})
	return taskID, err
}

// startRunner makes sure the runner runs and records its task in watcher
// id's state.
func (s *Service) startRunner(id string) (string, error) {
	taskID, err := s.ensureRunner()
	if err != nil {
		return "", err
	}
	return taskID, s.store.SetTask(id, taskID)
}
