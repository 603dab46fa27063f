package cchook

import (
	"context"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
)

// Stop delivers the news of the session's own background tasks once, as
// additional context: Claude Code 2.1.328 gives the model a turn with it
// (a system reminder) and shows the person no error banner, which a block
// (exit 2, or "decision": "block") always does. While one of the session's
// tasks that can end by itself still runs, it waits up to HANGDOG_STOP_WAIT
// (default 20 s) for its end.

// DefaultStopWait is how long Stop waits for the session's own work.
const DefaultStopWait = 20 * time.Second

// The Stop hook's pace: how often it looks while it waits, and, once the
// waited-for tasks have ended, how long it looks for their end event (a
// task's result is written before its event).
const (
	stopPoll       = 300 * time.Millisecond
	stopSettle     = 200 * time.Millisecond
	stopSettleTurn = 10
)

func (h *Hook) stop(ctx context.Context, in Input) error {
	s, err := openSession(h.Reg, in.SessionID)
	if err != nil {
		return err
	}
	told := false
	tell := func(evs []bgtasks.Event) error {
		told = true
		return h.answer(map[string]any{"hookSpecificOutput": map[string]any{
			"hookEventName":     "Stop",
			"additionalContext": newsBlock(evs) + "\nReview this and carry on with your task.",
		}})
	}
	if err := s.takeNews(tell); err != nil || told {
		return err
	}
	deadline := time.Now().Add(parseWait(h.Getenv(envStopWait)))
	waited := false
	for time.Now().Before(deadline) && h.waitable(s) {
		waited = true
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(stopPoll):
		}
		if err := s.takeNews(tell); err != nil || told {
			return err
		}
	}
	if !waited {
		return nil
	}
	for range stopSettleTurn {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(stopSettle):
		}
		if err := s.takeNews(tell); err != nil || told {
			return err
		}
	}
	return nil
}

// parseWait reads HANGDOG_STOP_WAIT: a Go duration or seconds; a bad value
// is the default.
func parseWait(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return DefaultStopWait
	}
	if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		return d
	}
	if n, err := strconv.ParseFloat(v, 64); err == nil && n >= 0 {
		return time.Duration(n * float64(time.Second))
	}
	return DefaultStopWait
}

// waitable says whether one of the tasks the session's calls left running
// runs that can end by itself: moved to the background for time, or
// started in the background, and listening on no TCP port (a server never
// ends by itself). A task the agent started otherwise (`hangdog bg run`) is
// not waited for: the plugin's monitor tells its end when it comes.
func (h *Hook) waitable(s *session) bool {
	r, err := s.read()
	if err != nil {
		return false
	}
	for id, info := range r.Tasks {
		if info.Kind != kindTime && info.Kind != kindBackground {
			continue
		}
		t, err := h.Reg.Get(id)
		if err != nil || (t.State() != bgtasks.Running && t.State() != bgtasks.Starting) {
			continue
		}
		if waitKindOf("", t.DetachReason) != kindTime {
			continue
		}
		if t.PID > 0 && listening(t.PID) {
			continue
		}
		return true
	}
	return false
}

// listening says whether a task's process group holds a listening TCP
// socket.
func listening(pid int) bool {
	pgid, err := getpgid(pid)
	if err != nil {
		return false
	}
	inodes := map[string]bool{}
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		n, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		if g, err := getpgid(n); err != nil || g != pgid {
			continue
		}
		fds, _ := os.ReadDir("/proc/" + p.Name() + "/fd")
		for _, fd := range fds {
			link, err := os.Readlink("/proc/" + p.Name() + "/fd/" + fd.Name())
			if err == nil && strings.HasPrefix(link, "socket:[") {
				inodes[strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")] = true
			}
		}
	}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(table)
		if err != nil {
			continue
		}
		lines := strings.Split(string(b), "\n")
		for _, l := range lines[min(1, len(lines)):] {
			cols := strings.Fields(l)
			if len(cols) > 9 && cols[3] == "0A" && inodes[cols[9]] {
				return true
			}
		}
	}
	return false
}
