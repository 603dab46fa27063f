// Package tui owns hangdog's interactive shell for a person: a prompt whose
// commands run as supervised foreground tasks, a scrollback that streams
// their output, a status bar that shows what the watchdog is doing, slash
// commands for background tasks (/bg-detach, /bg, /logs, /kill, /send, /log)
// and the settings screen. A full-screen program (pager, editor, top) gets
// the real terminal until it leaves the alternate screen or Ctrl+B detaches
// it.
//
// The shell is a bubbletea program. Goroutines that read a task's link or
// the event log never call into the program; they post to a mailbox that the
// model drains with one command at a time, so a blocked terminal hand-over
// can never deadlock them.
package tui
