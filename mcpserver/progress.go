package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hangdog/hangdog/internal/tailbuf"
	"github.com/hangdog/hangdog/internal/termtext"
	"github.com/hangdog/hangdog/taskctl"
)

// A long bash call tells a client that asked (a progressToken) how it is
// going: the newest lines of output, at most once a second, and a
// heartbeat when the command is quiet, so a client that resets its request
// timeout on progress does not give up on a build that is still working.
const (
	progressEvery     = time.Second
	progressHeartbeat = 10 * time.Second
	progressLines     = 5
	progressKeep      = 8 << 10
)

// progress sends notifications/progress for one call; nil when the client
// sent no token.
type progress struct {
	req     *mcp.CallToolRequest
	token   any
	started time.Time

	mu   sync.Mutex
	tail *tailbuf.Buffer
}

func newProgress(ctx context.Context) *progress {
	req := callRequest(ctx)
	if req == nil || req.Session == nil || req.Params == nil {
		return nil
	}
	token := req.Params.GetProgressToken()
	if token == nil {
		return nil
	}
	return &progress{req: req, token: token, started: time.Now(), tail: tailbuf.New(progressKeep)}
}

// write takes output as it comes; the notifications are sent by run.
func (p *progress) write(b []byte) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.tail.Write(b)
	p.mu.Unlock()
}

// run sends notifications until ctx is done. Progress is the seconds the
// command has run: it only grows, as the protocol wants, and the total is
// unknown.
func (p *progress) run(ctx context.Context, id string) {
	if p == nil {
		return
	}
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	var sent int64
	last := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		p.mu.Lock()
		raw, _ := p.tail.Bytes()
		total := p.tail.Total()
		p.mu.Unlock()
		if total == sent && time.Since(last) < progressHeartbeat {
			continue
		}
		elapsed := time.Since(p.started)
		msg := fmt.Sprintf("task %s running for %s, no new output", id, taskctl.Spoken.Format(elapsed.Round(time.Second)))
		if total != sent {
			lines := strings.TrimRight(termtext.LastLines(strings.TrimRight(termtext.Plain(raw), "\n"), progressLines), "\n")
			msg = fmt.Sprintf("task %s running for %s; newest output (untrusted):\n%s", id, taskctl.Spoken.Format(elapsed.Round(time.Second)), lines)
		}
		sent, last = total, time.Now()
		if err := p.req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
			ProgressToken: p.token, Progress: elapsed.Seconds(), Message: msg,
		}); err != nil {
			return // the client has gone; the call's own result says the rest
		}
	}
}
