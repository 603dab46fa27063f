//go:build lite

package main

import "github.com/hangdog/hangdog/internal/hiddenarg"

// The watch and approve commands, the watcher runner and the wake worker link net/http
// and the watch package; the lite hangdog lists them and hands them over
// to hangdog-full, as it does the shell (heavy_lite.go).
func init() {
	handOver("watch", "Watchers: be told once when a file, URL, feed, process or command changes", false)
	handOver("approve", "Approval links: a person decides on a small page, and the session is told once", false)
	handOver("wake", "Hand new events to a command that wakes an idle agent, one batch at a time", false)
	handOver(hiddenarg.Watch, "Run the home's watchers", true)
	handOver("fleet", fleetShort, false)
	handOver("serve", "Run the one local receiver of trigger and approval links (started on demand)", false)
}
