package main

import "strconv"

// exitCodeDoc is one row of the exit codes hangdog's commands end with; the
// reference (docs/reference/exit-codes.md) is generated from exitCodes, so
// the table is written once, here, beside the constants it names.
type exitCodeDoc struct {
	Code    string
	Meaning string
}

var exitCodes = []exitCodeDoc{
	{"the command's", "`run` and `bg wait` pass the command's exit code through"},
	{"128+N", "the command was ended by signal N (130 for SIGINT, 143 for SIGTERM, 137 for SIGKILL)"},
	{"0", "`run` was detached: the command goes on in the background (or it exited 0 and left processes running)"},
	{strconv.Itoa(exitWaitTimeout), "`bg wait --timeout` expired; the task is still running"},
	{strconv.Itoa(exitHangdogError), "hangdog itself failed: bad input, an unknown task or subcommand, an unwritable home; the message on stderr, prefixed `hangdog:`, says what to do"},
	{"127", "the command was not found (bash's own code, passed through)"},
}
