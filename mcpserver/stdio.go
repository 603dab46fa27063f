package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// JSON-RPC error codes the transport answers with itself.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// maxLine bounds one inbound message, as the SDK's own stdio transport does.
const maxLine = 16 << 20

// StdioTransport serves MCP over newline-delimited JSON-RPC on In and Out
// (the server's stdin and stdout), like the SDK's mcp.StdioTransport, with
// two differences. A line that is not JSON, or not a JSON-RPC message, is
// answered with a JSON-RPC error (−32700 parse error, −32600 invalid
// request) and the session goes on; the SDK's transport ends the session at
// the first such line. And when In ends, the requests already received are
// still answered before the session ends: a client that writes its
// requests and closes its end of the pipe gets every reply.
type StdioTransport struct {
	In  io.Reader
	Out io.Writer
}

// Connect implements mcp.Transport.
func (t *StdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	out := &lockedWriter{w: t.Out}
	pr, pw := io.Pipe()
	inner, err := (&mcp.IOTransport{Reader: pr, Writer: out, MaxLineLength: -1}).Connect(ctx)
	if err != nil {
		return nil, err
	}
	c := &stdioConn{Connection: inner, out: out, pending: map[string]bool{}, closed: make(chan struct{})}
	go c.filter(t.In, pw)
	return c, nil
}

// lockedWriter serialises whole messages from the SDK and from the filter.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return nil }

// stdioConn is the SDK's connection over the filtered input, counting the
// requests not yet answered.
type stdioConn struct {
	mcp.Connection
	out *lockedWriter

	mu        sync.Mutex
	pending   map[string]bool // idKey of each request passed on and not yet answered
	closed    chan struct{}
	closeOnce sync.Once
}

func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.Connection.Write(ctx, msg)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.settle(idKey(resp.ID))
	}
	return err
}

func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return c.Connection.Close()
}

func (c *stdioConn) settle(key string) {
	c.mu.Lock()
	delete(c.pending, key)
	c.mu.Unlock()
}

// filter copies well-formed messages from in to pw, one per line, answers
// the rest itself, and ends pw once in has ended and every request passed
// on has been answered (or the connection closed).
func (c *stdioConn) filter(in io.Reader, pw *io.PipeWriter) {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readLine(r)
		switch {
		case tooLong:
			c.reply(nil, codeInvalidRequest, fmt.Sprintf("message longer than %d bytes", maxLine))
		case len(bytes.TrimSpace(line)) > 0:
			if !c.pass(bytes.TrimSpace(line), pw) {
				return
			}
		}
		if err != nil {
			break
		}
	}
	c.waitAnswered()
	pw.Close()
}

// readLine reads one line without its newline; a line past maxLine is
// read to its end and dropped (tooLong).
func readLine(r *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > maxLine+1 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSuffix(line, []byte("\n")), tooLong, err
	}
}

// pass checks one line and hands it on, or answers it with an error. It
// reports false once the connection no longer takes input.
func (c *stdioConn) pass(line []byte, pw *io.PipeWriter) bool {
	msgs, err := decodeLine(line)
	if err != nil {
		code := codeInvalidRequest
		if !json.Valid(line) {
			code = codeParseError
		}
		c.reply(lineID(line), code, err.Error())
		return true
	}
	c.mu.Lock()
	for _, m := range msgs {
		req, ok := m.(*jsonrpc.Request)
		if !ok {
			continue
		}
		if req.IsCall() {
			c.pending[idKey(req.ID)] = true
		} else if req.Method == "notifications/cancelled" {
			// A cancelled call may never be answered.
			var p struct {
				RequestID any `json:"requestId"`
			}
			if json.Unmarshal(req.Params, &p) == nil {
				if id, err := jsonrpc.MakeID(p.RequestID); err == nil {
					delete(c.pending, idKey(id))
				}
			}
		}
	}
	c.mu.Unlock()
	_, err = pw.Write(append(line, '\n'))
	return err == nil
}

// decodeLine decodes a message or a batch of them as the SDK will.
func decodeLine(line []byte) ([]jsonrpc.Message, error) {
	if line[0] == '[' {
		var batch []json.RawMessage
		if err := json.Unmarshal(line, &batch); err != nil {
			return nil, fmt.Errorf("parse error: %v", err)
		}
		if len(batch) == 0 {
			return nil, errors.New("invalid request: empty batch")
		}
		var msgs []jsonrpc.Message
		for _, raw := range batch {
			m, err := jsonrpc.DecodeMessage(raw)
			if err != nil {
				return nil, fmt.Errorf("invalid request in batch: %v", err)
			}
			msgs = append(msgs, m)
		}
		return msgs, nil
	}
	m, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		if !json.Valid(line) {
			return nil, fmt.Errorf("parse error: not JSON (%v)", err)
		}
		return nil, fmt.Errorf("invalid request: %v", err)
	}
	return []jsonrpc.Message{m}, nil
}

// lineID is the id of a message that could not be decoded, when it has a
// usable one; nil (JSON null) otherwise, as JSON-RPC asks.
func lineID(line []byte) any {
	var m struct {
		ID any `json:"id"`
	}
	if json.Unmarshal(line, &m) != nil {
		return nil
	}
	switch m.ID.(type) {
	case string, float64:
		return m.ID
	}
	return nil
}

// reply writes a JSON-RPC error response for a message the SDK never saw.
func (c *stdioConn) reply(id any, code int, msg string) {
	b, _ := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		ID      any    `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, msg}})
	c.out.Write(append(b, '\n'))
}

// waitAnswered waits until every request passed on has been answered, or
// the connection is closed.
func (c *stdioConn) waitAnswered() {
	for {
		c.mu.Lock()
		n := len(c.pending)
		c.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-c.closed:
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
}
