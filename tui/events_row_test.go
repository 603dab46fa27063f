package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/hangdog/hangdog/bgtasks"
)

// An /events line fits the terminal whatever its reason and command hold:
// the reason is cut at the edge and the command comes only where it fits
// after the whole reason, never after a cut one.
func TestEventRowFitsTheWidth(t *testing.T) {
	at := time.Date(2026, 11, 29, 10, 1, 2, 0, time.Local)
	code := 1
	var evs []bgtasks.Event
	for _, h := range hostile {
		evs = append(evs,
			bgtasks.Event{Kind: bgtasks.EventDetached, Time: at, TaskID: "t7", Reason: h, Command: "make test " + h},
			bgtasks.Event{Kind: bgtasks.EventWarning, Time: at, TaskID: "t7", Reason: "still running", Command: h},
			bgtasks.Event{Kind: bgtasks.EventExited, Time: at, TaskID: "t7", ExitCode: &code, DurationMS: 5000, Command: h})
	}
	for _, width := range []int{20, 40, 80, 132, 250} {
		for _, e := range evs {
			row := eventRow(e, width)
			if fw, sw := frameWidth(row), ansi.StringWidth(row); fw > width || sw > width {
				t.Fatalf("%d columns: a row of %d (%d to bubbletea): %q", width, fw, sw, ansi.Strip(row))
			}
		}
	}
	long := bgtasks.Event{Kind: bgtasks.EventDetached, Time: at, TaskID: "t7", Reason: strings.Repeat("waiting for input ", 10), Command: "npm run dev"}
	if row := ansi.Strip(eventRow(long, 80)); !strings.Contains(row, "…") || strings.Contains(row, "npm") {
		t.Fatalf("a reason cut at 80 columns, then the command: %q", row)
	}
	short := bgtasks.Event{Kind: bgtasks.EventDetached, Time: at, TaskID: "t7", Reason: "prompt", Command: "npm run dev"}
	if row := ansi.Strip(eventRow(short, 80)); !strings.HasSuffix(row, "t7 detached: prompt  npm run dev") {
		t.Fatalf("a short reason and its command at 80 columns: %q", row)
	}
}
