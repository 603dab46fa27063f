// Package activity owns what a command's terminal output says about its
// progress: how many bytes and lines arrived and when, the unfinished last
// line (often a prompt), the last complete lines, and how much of the recent
// output repeats itself once numbers and ids are masked (a retry loop).
//
// The supervisor's PTY reader feeds every chunk to a Tracker; Write only
// counts and keeps the most recent raw bytes, so it stays cheap at any
// output rate. The text work (escape sequences, carriage returns, masking)
// happens in Snapshot, over a bounded window of recent output.
package activity
