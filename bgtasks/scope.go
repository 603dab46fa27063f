package bgtasks

import (
	"os"
	"path/filepath"
)

// Scope is whose tasks and events a reader sees: a session sees what it
// started, a caller without a session sees its project, and All sees
// everything. Agents run many sessions at once on one home; without a scope
// each would be told of, and wait for, the others' work.
type Scope struct {
	All     bool
	Owner   string // the caller's session; "" for none
	Project string // the caller's project, used when it has no session
}

// Sees reports whether a task or event of that owner and project is in the
// scope. Records from before owners were kept (no owner, no project) are
// seen by everyone, as they were then.
func (s Scope) Sees(owner, project string) bool {
	switch {
	case s.All, owner == "" && project == "":
		return true
	case s.Owner != "":
		return owner == s.Owner
	default:
		return project == s.Project
	}
}

// SeesTask reports whether t is in the scope.
func (s Scope) SeesTask(t *Task) bool { return s.Sees(t.Owner, t.Project) }

// SeesEvent reports whether e is in the scope.
func (s Scope) SeesEvent(e Event) bool { return s.Sees(e.Owner, e.Project) }

// Tasks keeps the tasks in the scope, in their order.
func (s Scope) Tasks(tasks []*Task) []*Task {
	out := tasks[:0:0]
	for _, t := range tasks {
		if s.SeesTask(t) {
			out = append(out, t)
		}
	}
	return out
}

// Events keeps the events in the scope, in their order.
func (s Scope) Events(events []Event) []Event {
	out := events[:0:0]
	for _, e := range events {
		if s.SeesEvent(e) {
			out = append(out, e)
		}
	}
	return out
}

// Event is an event of kind about the task, carrying what every event of
// it must: its id, command, owner and project.
func (m *Meta) Event(kind string) Event {
	return Event{Kind: kind, TaskID: m.ID, Command: m.Command, Owner: m.Owner, Project: m.Project}
}

// ProjectOf is the project a directory belongs to: the top level of the git
// work tree holding it (the nearest parent with a .git entry, file or
// directory, so worktrees and submodules count), else the directory itself.
// It reads no more than one stat per parent and runs no git.
func ProjectOf(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir
	}
	for d := abs; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return abs
		}
		d = parent
	}
}
