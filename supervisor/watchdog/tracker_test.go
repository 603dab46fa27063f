package watchdog

import (
	"testing"
	"time"

	"github.com/hangdog/hangdog/supervisor/activity"
	"github.com/hangdog/hangdog/supervisor/sampler"
)

// The real output tracker feeds the input rule: its unfinished last line is
// the prompt quoted to the caller, escape sequences and all resolved.
func TestPromptFromARealTracker(t *testing.T) {
	tr := activity.NewTracker()
	started := time.Now()
	if _, err := tr.Write([]byte("Unpacking…\r\n\x1b[1mOverwrite existing config?\x1b[0m [y/N] ")); err != nil {
		t.Fatal(err)
	}
	w := New(config(), "./install.sh", started)
	later := time.Now().Add(11 * time.Second) // the wait is measured from the last output
	snap := tr.Snapshot(later)
	if !w.FastCheckWanted(snap, later) {
		t.Fatal("no fast check wanted 11 s after a prompt")
	}
	d := w.Fast(Observation{Now: later, Started: started, Command: "./install.sh", Output: snap,
		Tree: tree(reading(sampler.TTYLine, "bash")), TreeOK: true})
	want{act: true, trigger: TriggerInput, action: ActionBackground, inputKind: InputPrompt,
		reason: "waiting for input: last line `Overwrite existing config? [y/N] `"}.check(t, "fast check", d)
}
