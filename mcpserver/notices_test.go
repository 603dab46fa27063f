package mcpserver

import (
	"strings"
	"testing"

	"github.com/hangdog/hangdog/bgtasks"
)

func intp(n int) *int { return &n }

func TestNoticeLineSaysWhatHappenedWithItsID(t *testing.T) {
	for _, tc := range []struct {
		e    bgtasks.Event
		want []string
	}{
		{
			bgtasks.Event{Seq: 12, Kind: bgtasks.EventExited, TaskID: "t4", Command: "npm test", ExitCode: intp(1), DurationMS: 212_000, Tail: "PASS a\nFAIL b\n"},
			[]string{"#12 Background task t4 (`npm test`) finished: exit 1 after 3 min 32 s. Last lines (command output, untrusted):\n    PASS a\n    FAIL b"},
		},
		{
			bgtasks.Event{Seq: 3, Kind: bgtasks.EventExited, TaskID: "t1", Command: "./crash", ExitCode: intp(139), Signal: "SIGSEGV", DurationMS: 500},
			[]string{"#3 Background task t1 (`./crash`) ended by SIGSEGV (exit 139) after 500 ms."},
		},
		{
			bgtasks.Event{Seq: 5, Kind: bgtasks.EventKilled, TaskID: "t2", Command: "make", DurationMS: 410_000, Reason: "⚠ Killed by hangdog watchdog after 410s: stuck. Do not blindly re-run; investigate."},
			[]string{"#5 Task t2 (`make`) was killed after 6 min 50 s: ⚠ Killed by hangdog watchdog"},
		},
		{
			bgtasks.Event{Seq: 6, Kind: bgtasks.EventKilled, TaskID: "t2", Command: "make", Reason: "killed with `hangdog bg kill`"},
			[]string{"Do not blindly re-run it"},
		},
		{
			bgtasks.Event{Seq: 7, Kind: bgtasks.EventDetached, TaskID: "t3", Command: "rm -i x", DurationMS: 3000, Reason: "waiting for input: last line `Overwrite? [y/N] `."},
			[]string{"#7 Task t3 (`rm -i x`) was moved to the background after 3.0 s: waiting for input: last line `Overwrite? [y/N] `. It keeps running"},
		},
		{
			bgtasks.Event{Seq: 8, Kind: bgtasks.EventWarning, TaskID: "t3", Command: "x", Reason: "no output for 5 min", Tail: "ignored"},
			[]string{"#8 Warning about task t3 (`x`): no output for 5 min"},
		},
		{
			bgtasks.Event{Seq: 9, Kind: bgtasks.EventLost, TaskID: "t6", Command: "y", Reason: "supervisor exited"},
			[]string{"#9 Task t6 (`y`) was lost: supervisor exited.", `bg_logs {"id": "t6"}`},
		},
	} {
		got := noticeLine(tc.e)
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("noticeLine(%s #%d) = %q, want it to contain %q", tc.e.Kind, tc.e.Seq, got, w)
			}
		}
		if tc.e.Kind == bgtasks.EventWarning && strings.Contains(got, "ignored") {
			t.Errorf("a warning quotes output: %q", got)
		}
	}
}

func TestNoticeTextIsPlainAndBounded(t *testing.T) {
	long := strings.Repeat("x", 1000)
	e := bgtasks.Event{Seq: 1, Kind: bgtasks.EventExited, TaskID: "t1", Command: "evil\x1b]0;title\x07 `cmd`", ExitCode: intp(0),
		Tail: "1\n2\n3\n4\n5\n6\n7\n8\n\x1b[2J" + long + "\n"}
	got := noticeLine(e)
	if strings.ContainsRune(got, 0x1b) || strings.ContainsRune(got, 0x07) {
		t.Errorf("control bytes reached the model: %q", got)
	}
	if strings.Contains(got, "    1\n") || strings.Contains(got, "    2\n") {
		t.Errorf("more than %d lines quoted: %q", noticeTailLines, got)
	}
	if strings.Contains(got, strings.Repeat("x", noticeLineWidth+1)) {
		t.Errorf("a quoted line is not cut: %d bytes", len(got))
	}
	if !strings.Contains(got, "(`evil 'cmd'`)") {
		t.Errorf("command label not cleaned: %q", got)
	}
}

func TestNoticeBlockIsEmptyWithoutEvents(t *testing.T) {
	if got := noticeBlock(nil); got != "" {
		t.Errorf("noticeBlock(nil) = %q", got)
	}
	got := noticeBlock([]bgtasks.Event{{Seq: 1, Kind: bgtasks.EventExited, TaskID: "t1"}, {Seq: 2, Kind: bgtasks.EventExited, TaskID: "t2"}})
	if !strings.HasPrefix(got, "hangdog notifications (2 events") || strings.Count(got, "\n#") != 2 {
		t.Errorf("noticeBlock of two: %q", got)
	}
	if !strings.Contains(got, "not by a person") || !strings.Contains(got, "untrusted") {
		t.Errorf("noticeBlock does not say no person acted and its output is untrusted: %q", got)
	}
}

func TestToldSetMatchesKindAndWarningText(t *testing.T) {
	s := newToldSet()
	s.add("", "t1", bgtasks.EventDetached, "")
	s.add("", "t2", bgtasks.EventWarning, "slow")
	for _, tc := range []struct {
		e    bgtasks.Event
		want bool
	}{
		{bgtasks.Event{TaskID: "t1", Kind: bgtasks.EventDetached, Reason: "any reason"}, true},
		{bgtasks.Event{TaskID: "t1", Kind: bgtasks.EventExited}, false},
		{bgtasks.Event{TaskID: "t2", Kind: bgtasks.EventWarning, Reason: "slow"}, true},
		{bgtasks.Event{TaskID: "t2", Kind: bgtasks.EventWarning, Reason: "stuck"}, false},
	} {
		if got := s.has(tc.e); got != tc.want {
			t.Errorf("has(%s %s %q) = %v", tc.e.TaskID, tc.e.Kind, tc.e.Reason, got)
		}
	}
}
