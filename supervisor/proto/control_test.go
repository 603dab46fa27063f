package proto

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hangdog/hangdog/internal/taskstate"
)

// recorder serves every operation, keeping what it was asked; refuse, when
// set, is every handler's answer instead.
type recorder struct {
	got    []any
	refuse error
}

func (r *recorder) answer(q any) error { r.got = append(r.got, q); return r.refuse }

func (r *recorder) Status(q StatusRequest) (Status, error) {
	return Status{Mode: taskstate.Background, PID: 7, OutputBytes: 9, EchoOff: true}, r.answer(q)
}

func (r *recorder) Detach(q DetachRequest) (Detach, error) {
	return Detach{TaskID: "t1", Reason: q.Reason, OutputBytes: 3}, r.answer(q)
}

func (r *recorder) Kill(q KillRequest) (Result, error) {
	return Result{State: taskstate.Killed, ExitCode: 143, Signal: "SIGTERM", Ended: time.Unix(1_800_000_000, 0).UTC(), Reason: q.Reason}, r.answer(q)
}
func (r *recorder) Send(q SendRequest) (Ack, error)     { return Ack{}, r.answer(q) }
func (r *recorder) Resize(q ResizeRequest) (Ack, error) { return Ack{}, r.answer(q) }

// roundTrip asks srv for q as a client and a supervisor do, through the
// lines they exchange.
func roundTrip[R any](srv Server, q Request[R]) (R, error) {
	return DecodeReply(q, Serve(srv, EncodeRequest(q)))
}

// Each operation reaches its own handler with its own fields, and its
// typed reply comes back whole.
func TestEachOperationReachesItsHandlerAndItsReplyComesBack(t *testing.T) {
	srv := &recorder{}
	st, err := roundTrip(srv, StatusRequest{})
	if err != nil || st != (Status{Mode: taskstate.Background, PID: 7, OutputBytes: 9, EchoOff: true}) {
		t.Errorf("status: %+v, %v", st, err)
	}
	d, err := roundTrip(srv, DetachRequest{Reason: "by hand"})
	if err != nil || d.TaskID != "t1" || d.Reason != "by hand" || d.OutputBytes != 3 {
		t.Errorf("detach: %+v, %v", d, err)
	}
	res, err := roundTrip(srv, KillRequest{Signal: 15, GraceMS: 250, Reason: "bg kill"})
	if err != nil || res.State != taskstate.Killed || res.ExitCode != 143 || res.Reason != "bg kill" || !res.Ended.Equal(time.Unix(1_800_000_000, 0)) {
		t.Errorf("kill: %+v, %v", res, err)
	}
	if _, err := roundTrip(srv, SendRequest{Data: []byte("y\r\x03")}); err != nil {
		t.Errorf("send: %v", err)
	}
	if _, err := roundTrip(srv, ResizeRequest{Rows: 50, Cols: 200}); err != nil {
		t.Errorf("resize: %v", err)
	}
	want := []any{StatusRequest{}, DetachRequest{Reason: "by hand"}, KillRequest{Signal: 15, GraceMS: 250, Reason: "bg kill"},
		SendRequest{Data: []byte("y\r\x03")}, ResizeRequest{Rows: 50, Cols: 200}}
	if !reflect.DeepEqual(srv.got, want) {
		t.Errorf("the handlers were asked\n %#v\nwant\n %#v", srv.got, want)
	}
}

// The request line is the one every earlier build wrote and read (one
// flat object: the op and its fields), so a running task's supervisor of
// the build before an upgrade still understands a kill, and a send still
// carries its bytes.
func TestLinesKeepTheirShape(t *testing.T) {
	for _, c := range []struct {
		line []byte
		want string
	}{
		{EncodeRequest(StatusRequest{}), `{"op":"status"}`},
		{EncodeRequest(DetachRequest{}), `{"op":"detach"}`},
		{EncodeRequest(KillRequest{Signal: 9, GraceMS: 100, Reason: "stuck"}), `{"op":"kill","signal":9,"grace_ms":100,"reason":"stuck"}`},
		{EncodeRequest(SendRequest{Data: []byte("hi\n")}), `{"op":"send","data":"aGkK"}`},
		{EncodeRequest(ResizeRequest{Rows: 24, Cols: 80}), `{"op":"resize","rows":24,"cols":80}`},
	} {
		if string(c.line) != c.want+"\n" {
			t.Errorf("got %q, want %q", c.line, c.want+"\n")
		}
	}
	// And the reply: ok, then only the asked operation's part, by the
	// name it always had.
	for _, c := range []struct{ line, want string }{
		{`{"op":"send","data":"aGkK"}`, `{"ok":true}`},
		{`{"op":"status"}`, `{"ok":true,"status":{"mode":"background","pid":7,"output_bytes":9,"echo_off":true}}`},
		{`{"op":"kill"}`, `{"ok":true,"result":{"state":"killed","exit_code":143,"signal":"SIGTERM","ended":"2027-01-15T08:00:00Z","output_bytes":0}}`},
	} {
		if got := Serve(&recorder{}, []byte(c.line)); string(got) != c.want+"\n" {
			t.Errorf("%s: got %q, want %q", c.line, got, c.want+"\n")
		}
	}
}

// A refusal reaches the client as a *Refusal with its kind; any other
// error as a refusal of no kind, in the handler's words.
func TestARefusalKeepsItsKind(t *testing.T) {
	for _, c := range []struct {
		err  error
		kind ErrorKind
	}{
		{&Refusal{Kind: ErrEnded, Msg: "task t1 has already ended"}, ErrEnded},
		{fmt.Errorf("detach: %w", &Refusal{Kind: ErrBackground, Msg: "already in the background"}), ErrBackground},
		{errors.New("write to task t1's terminal: EIO"), ""},
	} {
		_, err := roundTrip(&recorder{refuse: c.err}, KillRequest{})
		ref, ok := errors.AsType[*Refusal](err)
		if !ok || ref.Kind != c.kind || ref.Msg != c.err.Error() {
			t.Errorf("handler's %v: client got %#v", c.err, err)
		}
	}
}

// A line that is no request, or names no operation served, is refused in
// words, and the reply is still one line.
func TestAnUnknownOrMalformedRequestIsRefused(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{`{"op":"reboot"}`, `unknown operation "reboot"`},
		{`{"op":"kill","signal":"nine"}`, "malformed kill request"},
		{`not json`, "malformed request"},
	} {
		_, err := DecodeReply(StatusRequest{}, Serve(&recorder{}, []byte(c.line)))
		if ref, ok := errors.AsType[*Refusal](err); !ok || !strings.Contains(ref.Msg, c.want) {
			t.Errorf("%s: got %v, want a refusal saying %q", c.line, err, c.want)
		}
	}
}
