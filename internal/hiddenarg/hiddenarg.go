// Package hiddenarg owns the hidden arguments a program's main checks
// before any CLI parsing, each turning the binary into a helper process:
// a task's supervisor (Supervise) and the helper that asks a remote decision
// model for it (Ask). The mains dispatch on them and the packages that start
// those helpers (supervisor/spawn, jev/askproc) name them from here. Hidden
// cobra commands, such as a watcher's runner, are the CLI's own.
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

// Watch is the argument the watchers' runner task is started with: to
// hangdog-watch (cmd/hangdog-watch, runner.Main in watchctl/runner), or,
// where that is not installed, to hangdog-full (`hangdog __watch`). Only
// the watcher service (watchctl) starts it; the CLI registers it.
const Watch = "__watch"
