package taskctl

import (
	"fmt"

	"github.com/hangdog/hangdog/bgtasks"
)

// StartBackground starts the command of req as a background task, as `bg
// run` does, and returns its id once the command runs (or why it could
// not start). quietEnd: the command tells of its own end (a watcher's
// runner, a wake worker), so the task's end is no event. The helpers
// hangdog runs this way (`hangdog __watch`, `hangdog wake --run`'s worker)
// go through it.
func StartBackground(reg *bgtasks.Registry, req Request, display string, quietEnd bool) (string, error) {
	pending, err := Prestart(nil)
	if err != nil {
		return "", err
	}
	req.Mode = bgtasks.Background
	spec, err := Resolve(req)
	if err != nil {
		pending.Cancel()
		return "", err
	}
	spec.QuietEnd = quietEnd
	if display != "" {
		spec.Command = display // shown only: Argv is what runs
	}
	link, err := pending.Start(reg, spec)
	if err != nil {
		return "", err
	}
	defer link.Close()
	ev, err := link.Next()
	if err != nil {
		return "", fmt.Errorf("task %s: %w", link.TaskID, err)
	}
	if ev.Kind == EventFailed {
		return "", fmt.Errorf("task %s could not start: %s", link.TaskID, ev.Message)
	}
	return link.TaskID, nil
}
