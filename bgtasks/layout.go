package bgtasks

import "path/filepath"

// The paths of a task's files by id, for processes that hold a task's id
// but not its record: its supervisor, and a caller on its link. Only this
// package spells the file names (a test holds that), so the layout of a
// task directory can change in one place.

// OutputPath is task id's output.log.
func (r *Registry) OutputPath(id string) string {
	return filepath.Join(r.taskDir(id), outputFileName)
}

// SocketPath is task id's control socket.
func (r *Registry) SocketPath(id string) string {
	return filepath.Join(r.taskDir(id), socketFileName)
}

// SupervisorLogPath is where task id's supervisor writes what it prints.
func (r *Registry) SupervisorLogPath(id string) string {
	return filepath.Join(r.taskDir(id), supervisorLogName)
}

// CheckLogPath is the watchdog's debug log, shared by every supervisor of
// the home (under LogsDir).
func (r *Registry) CheckLogPath() string {
	return filepath.Join(r.LogsDir(), checkLogName)
}

// MetaPath is task id's meta.json.
func (r *Registry) MetaPath(id string) string {
	return filepath.Join(r.taskDir(id), metaFileName)
}
