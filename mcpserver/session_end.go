package mcpserver

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/hangdog/hangdog/settings"
	"github.com/hangdog/hangdog/taskctl"
)

// sessionEndGrace is how long each of a session's tasks has after SIGTERM
// when the session ends and tasks.onSessionEnd is kill.
const sessionEndGrace = 3 * time.Second

// endSession applies tasks.onSessionEnd to the tasks, watchers and links
// this session started, now that its client has gone: by default they are stopped, so a dev server
// an agent left running does not outlive the agent with nobody to stop it.
func (s *Server) endSession() {
	wd, _ := os.Getwd()
	st, err := settings.Load(settings.Options{Dir: wd, KeepGoing: true})
	if err != nil {
		s.logError(err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), sessionEndGrace+10*time.Second)
	defer cancel()
	// Its watchers and links first: paused, their runners end by
	// themselves, before their tasks are killed with the session's other
	// tasks (a killed runner would leave its watcher "stopped", not
	// saying why).
	if svc, bad := s.watchers(); bad == nil {
		ended, err := svc.EndSession(s.Consumer(), st.OnSessionEnd())
		for _, w := range ended {
			fmt.Fprintf(s.cfg.Log, "hangdog mcp: session ended: paused watcher %s (%s)\n", w.Spec.ID, w.Spec.Label())
		}
		if err != nil {
			s.logError(err)
		}
	}
	killed, err := taskctl.EndSession(ctx, s.reg, s.Consumer(), st.OnSessionEnd(), sessionEndGrace)
	for _, k := range killed {
		fmt.Fprintf(s.cfg.Log, "hangdog mcp: session ended: stopped %s (%s)\n", k.Task.ID, k.Task.Command)
	}
	if err != nil {
		s.logError(err)
	}
}
