package cchook

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/internal/safefile"
	"github.com/hangdog/hangdog/internal/termtext"
)

// sessionsDir holds one directory per Claude Code session under the home.
const sessionsDir = "claude-sessions"

// maxKey keeps "claude-"+key a valid consumer name (64 characters).
const maxKey = 57

// Key is a Claude Code session id made safe for a file and consumer name.
func Key(sessionID string) string {
	if sessionID == "" {
		sessionID = "default"
	}
	b := []byte(sessionID)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '-'
		}
	}
	if len(b) > maxKey {
		b = b[:maxKey]
	}
	return string(b)
}

// Owner is the hangdog session a Claude Code session's tasks belong to
// (`hangdog bg ls --session claude-ID`); it also names its event consumer.
func Owner(key string) string { return "claude-" + key }

// taskInfo is what the record keeps of a task the session started.
type taskInfo struct {
	Kind    string `json:"kind"` // a waitKind
	Command string `json:"command"`
}

// record is a session's state between hook calls.
type record struct {
	// Tasks are the tasks the session's calls left running (a rewritten
	// Bash call moved to the background, an MCP bash call detached or
	// started in the background), with what they wait for.
	Tasks map[string]taskInfo `json:"tasks"`
	// Started holds when each built-in tool call in flight started, by
	// tool_use_id (builtin.go).
	Started map[string]time.Time `json:"started,omitempty"`
}

// session is one Claude Code session's directory and event consumer.
type session struct {
	reg *bgtasks.Registry
	key string
	dir string
}

func openSession(reg *bgtasks.Registry, sessionID string) (*session, error) {
	key := Key(sessionID)
	dir := filepath.Join(reg.Home(), sessionsDir, key)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("claude session record: %w", err)
	}
	return &session{reg: reg, key: key, dir: dir}, nil
}

func (s *session) owner() string      { return Owner(s.key) }
func (s *session) recordPath() string { return filepath.Join(s.dir, "session.json") }

// update runs fn on the record under the session's lock and writes it back
// when fn reports a change.
func (s *session) update(fn func(r *record) bool) error {
	lock, err := os.OpenFile(s.recordPath()+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("claude session record: %w", err)
	}
	defer lock.Close()
	for {
		err = unix.Flock(int(lock.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("lock the claude session record: %w", err)
	}
	r, err := s.read()
	if err != nil {
		return err
	}
	if !fn(r) {
		return nil
	}
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("claude session record: %w", err)
	}
	return safefile.Write(s.recordPath(), b)
}

// read returns the record; a missing or damaged one reads as empty.
func (s *session) read() (*record, error) {
	r := &record{}
	b, err := os.ReadFile(s.recordPath())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("claude session record: %w", err)
	}
	if err == nil {
		_ = json.Unmarshal(b, r) // damaged: start afresh, as with none
	}
	if r.Tasks == nil {
		r.Tasks = map[string]taskInfo{}
	}
	return r, nil
}

// NoteLeftRunning records, for the Stop hook of the Claude Code session
// sessionID, a task one of its MCP bash calls left running: started in the
// background (started), or detached for what the watchdog saw (wait, its
// kind, and reason, the detach's words). `hangdog mcp` calls it when Claude
// Code started it, as a rewritten Bash call records the tasks it moves.
func NoteLeftRunning(reg *bgtasks.Registry, sessionID, taskID, command, wait, reason string, started bool) error {
	s, err := openSession(reg, sessionID)
	if err != nil {
		return err
	}
	kind := kindBackground
	if !started {
		kind = waitKindOf(wait, reason)
	}
	return s.addTask(taskID, kind, command)
}

// addTask records a task the session started.
func (s *session) addTask(id, kind, command string) error {
	return s.update(func(r *record) bool {
		r.Tasks[id] = taskInfo{Kind: kind, Command: termtext.Clip(command, 200)}
		return true
	})
}

// start makes the session's consumer known to the event log, so it is told
// what happens from now on (a consumer that exists keeps its cursor).
func (s *session) start() error {
	_, err := s.reg.Undelivered(s.owner())
	return err
}

// takeNews hands the session's undelivered news to tell, which writes it
// where the model reads it; the cursor moves only after tell returned nil,
// so a crash in between repeats news but never loses it. The session's
// news: events of the tasks it owns (its MCP server's too: the server is
// the session's consumer, so what it told is behind the cursor already),
// and no detach (the call's own result says it).
func (s *session) takeNews(tell func([]bgtasks.Event) error) error {
	return s.reg.WithConsumer(s.owner(), func() error {
		evs, err := s.reg.Undelivered(s.owner())
		if err != nil || len(evs) == 0 {
			return err
		}
		var mine []bgtasks.Event
		for _, e := range evs {
			if e.Owner == s.owner() && e.Kind != bgtasks.EventDetached {
				mine = append(mine, e)
			}
		}
		if len(mine) > 0 {
			if err := tell(mine); err != nil {
				return err
			}
		}
		return s.reg.MarkDelivered(s.owner(), evs[len(evs)-1].Seq)
	})
}
