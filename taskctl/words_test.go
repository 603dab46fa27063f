package taskctl

import (
	"testing"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
)

func TestDurationStyles(t *testing.T) {
	for _, c := range []struct {
		style DurationStyle
		d     time.Duration
		want  string
	}{
		{Spoken, 40 * time.Millisecond, "40 ms"},
		{Spoken, 4200 * time.Millisecond, "4.2 s"},
		{Spoken, 45 * time.Second, "45 s"},
		{Spoken, 212 * time.Second, "3 min 32 s"},
		{Spoken, 7500 * time.Second, "2 h 5 min"},
		{Compact, 300 * time.Millisecond, "0.3s"},
		{Compact, 212 * time.Second, "212s"},
		{Compact, 10*time.Minute + 5*time.Second, "10m05s"},
		{Compact, 3*time.Hour + 7*time.Minute, "3h07m"},
		{Compact, 50*time.Hour + 30*time.Minute, "2d02h"},
	} {
		if got := c.style.Format(c.d); got != c.want {
			t.Errorf("Format(%s) = %q, want %q", c.d, got, c.want)
		}
	}
}

func TestRoundDuration(t *testing.T) {
	for d, want := range map[time.Duration]time.Duration{
		1234 * time.Millisecond:  1200 * time.Millisecond,
		12345 * time.Millisecond: 12 * time.Second,
		999 * time.Microsecond:   0,
		10049 * time.Millisecond: 10 * time.Second,
		10500 * time.Millisecond: 11 * time.Second,
	} {
		if got := RoundDuration(d); got != want {
			t.Errorf("RoundDuration(%s) = %s, want %s", d, got, want)
		}
	}
}

func TestTerseWordsOfEvents(t *testing.T) {
	code := func(n int) *int { return &n }
	for _, c := range []struct {
		e    bgtasks.Event
		want string
	}{
		{bgtasks.Event{Kind: bgtasks.EventExited, ExitCode: code(2)}, "exited 2"},
		{bgtasks.Event{Kind: bgtasks.EventExited, ExitCode: code(139), Signal: "SIGSEGV"}, "exited by SIGSEGV"},
		{bgtasks.Event{Kind: bgtasks.EventKilled, ExitCode: code(143), Signal: "SIGTERM"}, "killed by SIGTERM"},
		{bgtasks.Event{Kind: bgtasks.EventKilled, ExitCode: code(0)}, "killed 0"},
		{bgtasks.Event{Kind: bgtasks.EventLost}, "lost"},
		{bgtasks.Event{Kind: bgtasks.EventDetached}, "running"},
	} {
		if got := DescribeEnd(EventResult(c.e), TerseWords{}); got != c.want {
			t.Errorf("%+v: %q, want %q", c.e, got, c.want)
		}
	}
}
