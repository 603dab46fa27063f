package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// A program that asks where the cursor is gets the answer every terminal
// gives, though nobody is at hangdog's: without it, termenv (every
// bubbletea program) waited 5 s at start-up and a line editor gave up on
// the terminal. The read's own timeout says "none" when nothing answers.
func TestCursorQueryIsAnsweredWithNobodyAtTheTerminal(t *testing.T) {
	e := newEnv(t)
	// The query split across two writes, as a program's output may be.
	r := e.run("run", "--json", `printf '\033['; sleep 0.2; printf '6n'; if IFS= read -rs -d R -t 4 pos; then echo "reported ${pos#*[}"; else echo none; fi`)
	var rep runReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, r.stdout)
	}
	if !strings.Contains(rep.Output, "reported 1;1") {
		t.Errorf("output = %q, want the cursor reported at 1;1", rep.Output)
	}
}
