// Package hiddenarg owns the hidden arguments that turn a hangdog binary
// into one of its helper processes. main dispatches on them before any CLI
// parsing, and the packages that start those helpers (supervisor/spawn,
// jev/askproc) name them from here.
//
// It imports nothing, on purpose: it is a leaf every layer may import
// without pulling anything upward or slowing a program's initialisation.
package hiddenarg

// Supervise makes a hangdog binary act as a task's supervisor.
const Supervise = "__supervise"

// Ask makes a hangdog binary a helper that asks a remote decision model for
// a supervisor (jev/askproc): the supervisor links no HTTP client of its
// own.
const Ask = "__ask"

// Watch makes hangdog-full run one watcher (`hangdog __watch ID`): what a
// watcher's background task runs. Only the watcher service (watchctl)
// starts it; the CLI registers it.
const Watch = "__watch"
