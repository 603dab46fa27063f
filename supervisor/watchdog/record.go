package watchdog

import (
	"regexp"
	"strings"
	"sync"
	"time"
)

// recordLine picks a LogLine apart again: what SeenInRecord needs of it.
// Compiled on first use: every supervisor links this package.
var recordLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(\S+) task=\S+ check=(\d+) (due|fast) status=(\S+) confidence=(\S+) streak=\d+` +
		` trigger=(\S+) veto=(.*?) action=(\S+)(?: input=(\S+))?(?: reason=(.*?))?(?: evidence=(.*))?$`)
})

// SeenInRecord says, in one sentence, what a check recorded as a LogLine
// (the task's checks file, bgtasks.CheckRecords) saw: when, its verdict,
// what proposed acting and what vetoed it, and its first pieces of evidence.
// A detach that is not the watchdog's (`hangdog mcp --max-wait`) quotes it
// so the caller learns more than "timed out". "" for a line it cannot read.
func SeenInRecord(line string, now time.Time) string {
	m := recordLine().FindStringSubmatch(line)
	if m == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString("the watchdog's last check")
	if at, err := time.Parse("2006-01-02T15:04:05.000Z07:00", m[1]); err == nil {
		b.WriteString(" (" + seconds(now.Sub(at).Round(time.Second)) + " ago)")
	}
	b.WriteString(" saw it ")
	if m[4] == "-" {
		b.WriteString("without a verdict")
	} else {
		b.WriteString(m[4] + " (" + m[5] + ")")
	}
	if m[9] != "" {
		b.WriteString(", waiting for input (" + m[9] + ")")
	}
	if m[6] != "-" {
		b.WriteString(", trigger " + m[6])
	}
	if m[7] != "-" {
		b.WriteString(", vetoed: " + m[7])
	}
	if ev := strings.Split(m[11], "; "); m[11] != "" {
		b.WriteString(": " + strings.Join(ev[:min(len(ev), 2)], "; "))
	}
	return b.String()
}
