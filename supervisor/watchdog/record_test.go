package watchdog

import (
	"strings"
	"testing"
	"time"
)

func TestSeenInRecordSaysWhatTheLastCheckSaw(t *testing.T) {
	at := time.Date(2026, 12, 1, 19, 20, 36, 0, time.UTC)
	d := Decision{Time: at, Check: 4, Due: true, Status: "waiting", Confidence: 0.7, Trigger: TriggerStop, Veto: "bound (until 19:21:00 / 30s)",
		Evidence: []string{"timer pending: `wget` pid 4120 in poll, timeout 900s", "no new output for 12s", "third"}}
	got := SeenInRecord(d.LogLine("t1"), at.Add(5*time.Second))
	for _, want := range []string{"5s ago", "waiting (0.70)", "trigger stop", "vetoed: bound (until 19:21:00 / 30s)", "`wget` pid 4120 in poll", "no new output for 12s"} {
		if !strings.Contains(got, want) {
			t.Errorf("SeenInRecord = %q, lacks %q", got, want)
		}
	}
	if strings.Contains(got, "third") {
		t.Errorf("SeenInRecord = %q: more than two pieces of evidence", got)
	}
	if SeenInRecord("not a check line", at) != "" {
		t.Error("a line that is no check gave a sentence")
	}
}
