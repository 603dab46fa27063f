package watchdog

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestKillMessage(t *testing.T) {
	tests := []struct {
		name           string
		elapsed, since time.Duration
		d              Decision
		want           string
	}{
		{
			name: "a streak", elapsed: 410 * time.Second, since: 300 * time.Second,
			d:    Decision{Status: "stuck", Confidence: 0.92, Streak: 2, Trigger: TriggerIdle, Act: true, Action: ActionKill},
			want: "⚠ Killed by hangdog watchdog after 410s: stuck (confidence 0.92) on 2 consecutive checks — no new output for 300s. Do not blindly re-run; investigate or change approach.",
		},
		{
			name: "one check, times rounded", elapsed: 130400 * time.Millisecond, since: 59600 * time.Millisecond,
			d:    Decision{Status: "looping", Confidence: 0.875, Streak: 1, Trigger: TriggerLooping},
			want: "⚠ Killed by hangdog watchdog after 130s: looping (confidence 0.88) on 1 consecutive check — no new output for 60s. Do not blindly re-run; investigate or change approach.",
		},
		{
			name: "no status: the trigger stands in", elapsed: 600 * time.Second, since: 600 * time.Second,
			d:    Decision{Streak: 3, Trigger: TriggerExpect},
			want: "⚠ Killed by hangdog watchdog after 600s: expect (confidence 0.00) on 3 consecutive checks — no new output for 600s. Do not blindly re-run; investigate or change approach.",
		},
		{
			name: "input", elapsed: 41 * time.Second, since: 11 * time.Second,
			d: Decision{Status: "waiting", Confidence: 0.97, Trigger: TriggerInput, InputKind: InputPrompt,
				Reason: "waiting for input: last line `Overwrite? [y/N] ` (sending the task input answers it)"},
			want: "⚠ Killed by hangdog watchdog after 41s: waiting for input: last line `Overwrite? [y/N] ` (sending the task input answers it) — no new output for 11s. " +
				"It was waiting for input nobody here can give; do not re-run it the same way: answer it non-interactively (a flag such as --yes, or the answer on stdin).",
		},
		{
			name: "a pager", elapsed: 20 * time.Second, since: 19 * time.Second,
			d: Decision{Trigger: TriggerInput, InputKind: InputPager, Reason: "waiting for input: pager `less` is showing output (`hangdog bg send` of q quits it)"},
			want: "⚠ Killed by hangdog watchdog after 20s: waiting for input: pager `less` is showing output (`hangdog bg send` of q quits it) — no new output for 19s. " +
				"It was waiting for input nobody here can give; do not re-run it the same way: turn the pager off (--no-pager, PAGER=cat, MANPAGER=cat, or pipe to cat).",
		},
		{
			name: "forced", elapsed: 120 * time.Second, since: 5 * time.Second,
			d:    Decision{Trigger: TriggerForced},
			want: "⚠ Killed by hangdog watchdog after 120s: forced for testing by HANGDOG_WATCHDOG_FORCE_ACT=1 — no new output for 5s. Unset HANGDOG_WATCHDOG_FORCE_ACT to run commands normally.",
		},
	}
	for _, tt := range tests {
		if got := KillMessage(tt.elapsed, tt.d, tt.since); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}

func TestKillMessageFromARealDecision(t *testing.T) {
	s := newSim(t, config(withAction(ActionKill)), "./deploy.sh")
	s.due(check1, tree(), true, false)
	d := s.due(check2, tree(), true, false)
	if !d.Act || d.Action != ActionKill {
		t.Fatalf("not killed: %s", d.LogLine("t1"))
	}
	want := "⚠ Killed by hangdog watchdog after 300s: stuck (confidence 0.85) on 2 consecutive checks — no new output for 300s. Do not blindly re-run; investigate or change approach."
	if got := KillMessage(5*time.Minute, d, 5*time.Minute); got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
}

func TestLogLine(t *testing.T) {
	d := Decision{
		Time: t0.Add(5 * time.Minute), Check: 3, Due: true,
		Status: "stuck", Confidence: 0.92, Streak: 2,
		Trigger: TriggerIdle, Veto: VetoProgress,
		Reason:   "stuck: no CPU\nfor 300s",
		Evidence: []string{"CPU 0.0% over 180s, no disk I/O", "last line \x1b[31mERROR\x1b[0m\r\nnext", "third"},
	}
	got := d.LogLine("t7")
	wantPrefix := "2026-03-04T12:05:00.000Z task=t7 check=3 due status=stuck confidence=0.92 streak=2 trigger=idle veto=progress action=none reason=stuck: no CPU for 300s evidence=CPU 0.0% over 180s, no disk I/O; last line "
	if !strings.HasPrefix(got, wantPrefix) {
		t.Errorf("LogLine =\n%q\nwant prefix\n%q", got, wantPrefix)
	}
	if !strings.HasSuffix(got, "; third") {
		t.Errorf("LogLine %q does not end with the last evidence", got)
	}
	for _, bad := range []string{"\n", "\r", "\x1b"} {
		if strings.Contains(got, bad) {
			t.Errorf("LogLine %q contains %q", got, bad)
		}
	}

	acted := Decision{Time: t0, Check: 1, Trigger: TriggerInput, Act: true, Action: ActionBackground, InputKind: InputSecret}
	if got := acted.LogLine("t8\nforged line"); !strings.Contains(got, "task=t8 forged line check=1 fast status=- confidence=0.00 streak=0 trigger=input veto=- action=background input=secret") {
		t.Errorf("LogLine = %q", got)
	}
}

func TestLogLineIsCapped(t *testing.T) {
	d := Decision{Time: t0, Check: 1, Due: true, Status: "stuck"}
	for i := 0; i < 20; i++ {
		d.Evidence = append(d.Evidence, strings.Repeat("é", 300))
	}
	got := d.LogLine("t1")
	if len(got) > maxLogLine {
		t.Errorf("LogLine is %d bytes, want at most %d", len(got), maxLogLine)
	}
	if !utf8.ValidString(got) || !strings.HasSuffix(got, "…") {
		t.Errorf("LogLine was not cut cleanly on a rune boundary: …%q", got[len(got)-20:])
	}
}

func TestQuoteRedactsAndFlattens(t *testing.T) {
	got := quote("token=ghp_0123456789abcdefghijABCDEFGHIJ012345\ttab `tick` \x1b[1mbold\x1b[0m", 200)
	for _, bad := range []string{"ghp_0123456789", "\t", "\x1b", "`tick`"} {
		if strings.Contains(got, bad) {
			t.Errorf("quote = %q, contains %q", got, bad)
		}
	}
	if !strings.HasPrefix(got, "`") || !strings.HasSuffix(got, "`") || !strings.Contains(got, "bold") {
		t.Errorf("quote = %q", got)
	}
	if got := quote(strings.Repeat("x", 50), 10); got != "`xxxxxxxxx…`" {
		t.Errorf("quote of a long line = %q", got)
	}
}
