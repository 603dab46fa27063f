package main

import (
	"fmt"
	"strconv"
	"strings"
)

// exitCodeDoc is one row of the exit codes hangdog's commands end with;
// `hangdog --help` and the reference (docs/reference/exit-codes.md) are
// made from exitCodes, so the table is written once, here, beside the
// constants it names.
type exitCodeDoc struct {
	Code    string
	Meaning string
}

var exitCodes = []exitCodeDoc{
	{"the command's", "`run` and `bg wait` pass the command's exit code through"},
	{"128+N", "the command was ended by signal N (130 for SIGINT, 143 for SIGTERM, 137 for SIGKILL)"},
	{"0", "`run` was detached: the command goes on in the background"},
	{strconv.Itoa(exitWaitTimeout), "`bg wait --timeout` expired; the task is still running"},
	{strconv.Itoa(exitHangdogError), "hangdog itself failed: bad input, an unknown task or subcommand, an unwritable home; the message on stderr, prefixed `hangdog:`, says what to do"},
	{"127", "the command was not found (bash's own code, passed through)"},
}

// exitCodesHelp is the table as the root command's help shows it.
func exitCodesHelp() string {
	var b strings.Builder
	b.WriteString("Exit codes:\n")
	for _, e := range exitCodes {
		fmt.Fprintf(&b, "  %-14s %s\n", e.Code, strings.ReplaceAll(e.Meaning, "`", ""))
	}
	return strings.TrimRight(b.String(), "\n")
}
