package proto

import "github.com/hangdog/hangdog/bgtasks"

// Op names an operation on a running task's control socket.
type Op string

// The operations a supervisor serves. Each names the Request fields it
// reads and the Reply field it fills.
const (
	OpStatus Op = "status" // → Reply.Status
	OpDetach Op = "detach" // Reason → Reply.Detach
	OpKill   Op = "kill"   // Signal, GraceMS, Reason → Reply.Result, once nothing of the task is left
	OpSend   Op = "send"   // Data
	OpResize Op = "resize" // Rows, Cols
)

// Request is one line of JSON on a task's control socket; the Reply is one
// line too. The socket is for the user's own hangdog processes, not an API.
type Request struct {
	Op      Op     `json:"op"`
	Reason  string `json:"reason,omitempty"`
	Signal  int    `json:"signal,omitempty"`
	GraceMS int64  `json:"grace_ms,omitempty"`
	Data    []byte `json:"data,omitempty"`
	Rows    uint16 `json:"rows,omitempty"`
	Cols    uint16 `json:"cols,omitempty"`
}

// Reply answers a Request. Error is set when OK is not; ErrorKind then says
// what kind of refusal it is, so a client can act on it without matching
// words.
type Reply struct {
	OK        bool            `json:"ok"`
	Error     string          `json:"error,omitempty"`
	ErrorKind ErrorKind       `json:"error_kind,omitempty"`
	Result    *bgtasks.Result `json:"result,omitempty"`
	Detach    *Detach         `json:"detach,omitempty"`
	Status    *Status         `json:"status,omitempty"`
}

// ErrorKind classifies a refused request.
type ErrorKind string

const (
	// ErrEnded: the task has ended; nothing is left to act on.
	ErrEnded ErrorKind = "ended"
	// ErrBackground: a detach of a task already in the background.
	ErrBackground ErrorKind = "background"
)
