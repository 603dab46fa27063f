package watchdog

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hangdog/hangdog/internal/termtext"
	"github.com/hangdog/hangdog/jev"
)

// maxLogLine caps one watchdog.log line, in bytes.
const maxLogLine = 2000

// LogLine renders the decision as one line of <home>/logs/watchdog.log,
// without the trailing newline: time, task, check number and kind, status,
// confidence, streak, trigger, veto, action, reason and the evidence joined
// by "; ". Output quoted in it was made printable and redacted; nothing in it
// can start a new line.
func (d Decision) LogLine(taskID string) string {
	kind := "fast"
	if d.Due {
		kind = "due"
	}
	action := "none"
	if d.Act {
		action = d.Action
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s task=%s check=%d %s status=%s confidence=%.2f streak=%d trigger=%s veto=%s action=%s",
		d.Time.Format("2006-01-02T15:04:05.000Z07:00"), termtext.OneLine(taskID), d.Check, kind,
		orDash(d.Status), d.Confidence, d.Streak, orDash(d.Trigger), orDash(d.Veto), action)
	if d.InputKind != "" {
		b.WriteString(" input=" + d.InputKind)
	}
	if d.Reason != "" {
		b.WriteString(" reason=" + termtext.OneLine(d.Reason))
	}
	if len(d.Evidence) > 0 {
		parts := make([]string, len(d.Evidence))
		for i, e := range d.Evidence {
			parts[i] = termtext.OneLine(e)
		}
		b.WriteString(" evidence=" + strings.Join(parts, "; "))
	}
	return termtext.Clip(b.String(), maxLogLine)
}

// KillMessage is what the caller reads after the watchdog killed its
// command: how long it ran, what was seen on how many checks, how long it was
// silent, and what to do instead of re-running it blindly.
//
//	⚠ Killed by hangdog watchdog after 410s: stuck (confidence 0.92) on 2 consecutive checks — no new output for 300s. Do not blindly re-run; investigate or change approach.
func KillMessage(elapsed time.Duration, d Decision, sinceOutput time.Duration) string {
	var what, advice string
	switch d.Trigger {
	case TriggerInput:
		what = d.Reason
		advice = "It was waiting for input nobody here can give; do not re-run it the same way: " + inputWait{kind: d.InputKind}.advice() + "."
	case TriggerForced:
		what = "forced for testing by HANGDOG_WATCHDOG_FORCE_ACT=1"
		advice = "Unset HANGDOG_WATCHDOG_FORCE_ACT to run commands normally."
	default:
		status := d.Status
		if status == "" {
			status = d.Trigger
		}
		checks := "checks"
		if d.Streak == 1 {
			checks = "check"
		}
		what = fmt.Sprintf("%s (confidence %.2f) on %d consecutive %s", status, d.Confidence, d.Streak, checks)
		advice = "Do not blindly re-run; investigate or change approach."
	}
	return fmt.Sprintf("⚠ Killed by hangdog watchdog after %s: %s — no new output for %s. %s",
		wholeSeconds(elapsed), what, wholeSeconds(sinceOutput), advice)
}

func wholeSeconds(d time.Duration) string {
	return fmt.Sprintf("%ds", int64(max(d, 0).Round(time.Second)/time.Second))
}

// quote shows untrusted text (command output, a process name) inside a reason
// or evidence: terminal escapes resolved away, control characters and
// newlines turned into spaces, secrets redacted, shortened to n runes, in
// backquotes.
func quote(s string, n int) string {
	s = jev.Redact(termtext.OneLine(termtext.Plain([]byte(s))))
	s = strings.ReplaceAll(s, "`", "'")
	if utf8.RuneCountInString(s) > n {
		r := []rune(s)
		s = string(r[:n-1]) + "…"
	}
	return "`" + s + "`"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return termtext.OneLine(s)
}
