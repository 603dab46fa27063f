//go:build linux

package supervisor

import (
	"bytes"
	"os"
)

// A terminal nobody watches still answers what every terminal answers.
// Programs ask the terminal where the cursor is (DSR, ESC [ 6 n) and wait
// for the report: termenv, and so every bubbletea and lipgloss program,
// asks at start-up and waits 5 s; line editors and prompt libraries ask
// before drawing. A person's terminal answers at once, and so does
// hangdog's when a person is at it (the caller passes the answer in like
// any key). With nobody at it — an agent's call, a background task, a run
// detached from its terminal — nothing would answer, and the program would
// stall or give up on the terminal: not what it does anywhere else. So the
// supervisor answers then, with the top-left corner: the reply a program
// needs to go on, and a position no screen contradicts, as nobody sees one.

// cursorQuery is the device status report that asks for the cursor.
var cursorQuery = []byte("\x1b[6n")

// cursorReport is the answer: row 1, column 1.
var cursorReport = []byte("\x1b[1;1R")

// queryScanner counts cursor queries in a stream read in chunks, a query
// split across two reads included.
type queryScanner struct {
	carry []byte // the end of the last chunk that may begin a query
}

// scan returns how many queries p completes.
func (q *queryScanner) scan(p []byte) int {
	n := bytes.Count(p, cursorQuery)
	// The carry and p's first bytes: too short to hold a query of p's own,
	// so a query found here is one split at the boundary.
	window := append(q.carry, p[:min(len(p), len(cursorQuery)-1)]...)
	if len(q.carry) > 0 {
		n += bytes.Count(window, cursorQuery)
	}
	// What may begin the next query: the longest end that is a proper
	// prefix of one, of p, or of the window when p is shorter than that.
	end := p
	if len(p) < len(cursorQuery)-1 {
		end = window
	}
	var next []byte
	for k := min(len(end), len(cursorQuery)-1); k > 0; k-- {
		if bytes.HasPrefix(cursorQuery, end[len(end)-k:]) {
			next = end[len(end)-k:]
			break
		}
	}
	q.carry = append(q.carry[:0:0], next...)
	return n
}

// answerCursorQueries writes one report per query to the PTY on its own
// goroutine, which readOutput owns and stops by closing queries: a write to
// the master blocks while the program does not read its input, and the
// reader must never wait on the program it reads. Queries beyond what the
// channel holds are dropped: a program that asks faster than it reads its
// answers would only fill its own input.
func answerCursorQueries(master *os.File, queries <-chan struct{}) {
	for range queries {
		master.Write(cursorReport)
	}
}
