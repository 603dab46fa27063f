package proto

import (
	"encoding/json"
	"errors"
	"fmt"
	"syscall"
	"time"
)

// Op names an operation on a running task's control socket.
type Op string

// The operations a supervisor serves, each with its request type below.
const (
	OpStatus Op = "status"
	OpDetach Op = "detach"
	OpKill   Op = "kill"
	OpSend   Op = "send"
	OpResize Op = "resize"
)

// Request is a request on the control socket whose successful reply is an
// R: one type per operation, holding the fields only that operation reads.
// It is sealed: the operations are this package's.
type Request[R any] interface {
	Op() Op
	// slot is where R travels in the reply line.
	slot(*reply) *R
}

// StatusRequest asks for a running task's live state.
type StatusRequest struct{}

// DetachRequest moves a foreground run to the background; its command is
// untouched.
type DetachRequest struct {
	Reason string `json:"reason,omitempty"` // "" for the supervisor's own words
}

// KillRequest stops the task's whole tree: Signal, then SIGKILL after
// GraceMS. It is answered once nothing of the task is left.
type KillRequest struct {
	Signal  int    `json:"signal,omitempty"`   // 0: SIGTERM
	GraceMS int64  `json:"grace_ms,omitempty"` // 0: the supervisor's default
	Reason  string `json:"reason,omitempty"`   // the caller's words; "" for the supervisor's
}

// Resolved is the request with its zero values filled in, as every server
// of a task's control socket applies them: SIGTERM, defaultGrace, and
// "killed on request" for a caller that gave no words.
func (r KillRequest) Resolved(defaultGrace time.Duration) (sig syscall.Signal, grace time.Duration, reason string) {
	sig, grace, reason = syscall.Signal(r.Signal), time.Duration(r.GraceMS)*time.Millisecond, r.Reason
	if sig == 0 {
		sig = syscall.SIGTERM
	}
	if grace <= 0 {
		grace = defaultGrace
	}
	if reason == "" {
		reason = "killed on request"
	}
	return sig, grace, reason
}

// SendRequest writes Data to the task's terminal.
type SendRequest struct {
	Data []byte `json:"data,omitempty"`
}

// ResizeRequest sets the task's terminal size.
type ResizeRequest struct {
	Rows uint16 `json:"rows,omitempty"`
	Cols uint16 `json:"cols,omitempty"`
}

// Ack is the reply of an operation that answers with nothing but success.
type Ack struct{}

func (StatusRequest) Op() Op { return OpStatus }
func (DetachRequest) Op() Op { return OpDetach }
func (KillRequest) Op() Op   { return OpKill }
func (SendRequest) Op() Op   { return OpSend }
func (ResizeRequest) Op() Op { return OpResize }

func (StatusRequest) slot(r *reply) *Status { return &r.Status }
func (DetachRequest) slot(r *reply) *Detach { return &r.Detach }
func (KillRequest) slot(r *reply) *Result   { return &r.Result }
func (SendRequest) slot(r *reply) *Ack      { return &r.ack }
func (ResizeRequest) slot(r *reply) *Ack    { return &r.ack }

// Server is what a supervisor implements to serve the control socket: one
// method per operation. An error is the request's refusal; a *Refusal
// error carries its kind to the client.
type Server interface {
	Status(StatusRequest) (Status, error)
	Detach(DetachRequest) (Detach, error)
	Kill(KillRequest) (Result, error)
	Send(SendRequest) (Ack, error)
	Resize(ResizeRequest) (Ack, error)
}

// Serve answers one request line with the reply line, both ending in '\n'.
func Serve(srv Server, line []byte) []byte {
	var head struct {
		Op Op `json:"op"`
	}
	var rep reply
	if err := json.Unmarshal(line, &head); err != nil {
		rep.Error = "malformed request: " + err.Error()
	} else {
		switch head.Op {
		case OpStatus:
			rep = serve(line, srv.Status)
		case OpDetach:
			rep = serve(line, srv.Detach)
		case OpKill:
			rep = serve(line, srv.Kill)
		case OpSend:
			rep = serve(line, srv.Send)
		case OpResize:
			rep = serve(line, srv.Resize)
		default:
			rep.Error = fmt.Sprintf("unknown operation %q", head.Op)
		}
	}
	b, _ := json.Marshal(rep)
	return append(b, '\n')
}

func serve[Q Request[R], R any](line []byte, handle func(Q) (R, error)) reply {
	var q Q
	if err := json.Unmarshal(line, &q); err != nil {
		return reply{Error: fmt.Sprintf("malformed %s request: %v", q.Op(), err)}
	}
	r, err := handle(q)
	if err != nil {
		rep := reply{Error: err.Error()}
		if ref, ok := errors.AsType[*Refusal](err); ok {
			rep.ErrorKind = ref.Kind
		}
		return rep
	}
	rep := reply{OK: true}
	*q.slot(&rep) = r
	return rep
}

// EncodeRequest is the line a client writes for q, ending in '\n': the
// operation's name and its fields in one JSON object.
func EncodeRequest[R any](q Request[R]) []byte {
	op, _ := json.Marshal(q.Op())
	fields, _ := json.Marshal(q) // an object: every request is a struct
	line := append([]byte(`{"op":`), op...)
	if len(fields) > 2 {
		line = append(append(line, ','), fields[1:]...)
	} else {
		line = append(line, '}')
	}
	return append(line, '\n')
}

// DecodeReply reads the reply line to q: its R, or the supervisor's
// refusal as a *Refusal.
func DecodeReply[R any](q Request[R], line []byte) (R, error) {
	var rep reply
	var zero R
	if err := json.Unmarshal(line, &rep); err != nil {
		return zero, fmt.Errorf("malformed answer to %s: %w", q.Op(), err)
	}
	if !rep.OK {
		return zero, &Refusal{Kind: rep.ErrorKind, Msg: rep.Error}
	}
	return *q.slot(&rep), nil
}

// reply is the line that answers a request. On the wire it is one object
// for every operation (ok, error, error_kind and the one operation's
// reply under its name), as it always was, so a client and a supervisor of
// two builds still understand each other; in Go only Request.slot reaches
// the operation's part.
type reply struct {
	OK        bool      `json:"ok"`
	Error     string    `json:"error,omitempty"`
	ErrorKind ErrorKind `json:"error_kind,omitempty"`
	Result    Result    `json:"result,omitzero"`
	Detach    Detach    `json:"detach,omitzero"`
	Status    Status    `json:"status,omitzero"`
	ack       Ack
}

// Refusal is a supervisor's refusal of a request. Kind says which kind it
// is, when it says, so a client can act on it without matching words.
type Refusal struct {
	Kind ErrorKind
	Msg  string
}

func (e *Refusal) Error() string { return e.Msg }

// ErrorKind classifies a refused request.
type ErrorKind string

const (
	// ErrEnded: the task has ended; nothing is left to act on.
	ErrEnded ErrorKind = "ended"
	// ErrBackground: a detach of a task already in the background.
	ErrBackground ErrorKind = "background"
)
