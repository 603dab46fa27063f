package askproc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/hangdog/hangdog/jev"
)

// Connect builds the backend a request's configuration describes, reading
// its API key with getenv. hangdog's is jev/remote's: it is passed in, not
// imported, because it links the HTTP client this package keeps out of the
// supervisor.
type Connect func(cfg jev.RemoteConfig, getenv func(string) string) (jev.Backend, error)

// Exit codes of Serve.
const (
	exitAnswered   = 0 // a response was written (abstentions and an error in it count)
	exitNoResponse = 1 // the response could not be written
	exitBadRequest = 2 // the request was unusable; a response saying why was written
)

// Serve is the helper's side of Backend, run as `hangdog __ask`: it reads
// one request from in, asks the backend connect builds for it, and writes
// one response to out. getenv is the helper's own environment, inherited
// from the asker, where the API key is read. The ask is bounded by the
// budget the asker allows it, so a helper whose asker died without killing
// it still ends. It returns the process's exit code: 0 once a response is
// written (abstentions and an error in it included), 2 when the request was
// unusable (a response says why), 1 when no response could be written.
func Serve(in io.Reader, out io.Writer, getenv func(string) string, connect Connect) int {
	resp, code := answer(in, getenv, connect)
	data, err := json.Marshal(resp)
	if err != nil {
		// An answer that cannot be encoded (a NaN) is no answer.
		data, _ = json.Marshal(response{Error: fmt.Sprintf("encode the answers: %v", err)})
	}
	if _, err := out.Write(data); err != nil {
		return exitNoResponse
	}
	return code
}

func answer(in io.Reader, getenv func(string) string, connect Connect) (response, int) {
	req, err := readRequest(in)
	if err != nil {
		return response{Error: err.Error()}, exitBadRequest
	}
	b, err := connect(req.Config, getenv)
	if err != nil {
		return response{
			Answers: jev.AbstainAll(req.Questions, req.Config.Backend, "the decision model is misconfigured"),
			Error:   err.Error(),
		}, exitAnswered
	}
	ctx, cancel := context.WithTimeout(context.Background(), budget(req.Config))
	defer cancel()
	answers, err := b.Ask(ctx, req.State, req.Questions)
	resp := response{Answers: answers}
	if err != nil {
		resp.Error = err.Error()
	}
	return resp, exitAnswered
}

func readRequest(in io.Reader) (request, error) {
	data, err := io.ReadAll(io.LimitReader(in, maxRequestSize+1))
	if err != nil {
		return request{}, fmt.Errorf("read the request: %w", err)
	}
	if len(data) > maxRequestSize {
		return request{}, fmt.Errorf("the request is larger than %d bytes", maxRequestSize)
	}
	var req request
	if err := json.Unmarshal(data, &req); err != nil {
		return request{}, fmt.Errorf("the request is not the JSON hangdog's supervisor sends: %w", err)
	}
	if len(req.Questions) == 0 {
		return request{}, errors.New("the request asks no questions")
	}
	return req, nil
}
