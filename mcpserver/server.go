//go:build linux

package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hangdog/hangdog/bgtasks"
)

// Server is one MCP session's worth of hangdog: its tools, its consumer
// cursor in the event log, and the bash calls it has running.
type Server struct {
	cfg        Config
	reg        *bgtasks.Registry
	mcp        *mcp.Server
	deliveries *deliveries
	told       *toldSet
	limit      int
	ephemeral  bool // the consumer name was made up for this session

	directCalls atomic.Int64 // numbers calls that bypass Run's connection

	mu         sync.Mutex
	foreground map[string]time.Time // task id → start, of this session's running bash calls
}

// New builds a server and registers its consumer with the event log, so
// events from now on are kept for it.
func New(cfg Config) (*Server, error) {
	if cfg.Registry == nil {
		return nil, errors.New("mcpserver: Config needs a Registry")
	}
	ephemeral := cfg.Consumer == ""
	if ephemeral {
		cfg.Consumer = DefaultConsumer()
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	s := &Server{
		cfg:        cfg,
		reg:        cfg.Registry,
		deliveries: newDeliveries(cfg.Registry, cfg.Consumer),
		told:       newToldSet(),
		limit:      cfg.OutputLimit,
		ephemeral:  ephemeral,
		foreground: map[string]time.Time{},
	}
	if s.limit <= 0 {
		s.limit = DefaultOutputLimit
	}
	if err := s.deliveries.register(); err != nil {
		return nil, err
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "hangdog", Title: "hangdog", Version: version(cfg.Version)},
		&mcp.ServerOptions{Instructions: instructions, Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}})
	if err := s.addTools(); err != nil {
		return nil, fmt.Errorf("mcpserver: %w", err)
	}
	return s, nil
}

// Consumer is the event-log consumer name of this session.
func (s *Server) Consumer() string { return s.cfg.Consumer }

// Run serves one session over t until the client goes away or ctx is done.
// Tool calls still running then are cancelled: their commands are stopped,
// as a foreground call's command goes with its caller.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	err := s.mcp.Run(ctx, &deliveryTransport{inner: t, d: s.deliveries, onErr: s.logError})
	s.endSession()
	if s.ephemeral {
		// A fresh name is never asked for again; its cursor would only pile up.
		if ferr := s.reg.ForgetConsumer(s.cfg.Consumer); ferr != nil {
			s.logError(ferr)
		}
	}
	return err
}

func (s *Server) logError(err error) {
	fmt.Fprintf(s.cfg.Log, "hangdog mcp: %v\n", err)
}

func version(v string) string {
	if v != "" {
		return v
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// toolResult is what a tool handler produces before notifications are added.
type toolResult struct {
	text    string
	isError bool
}

func errorResult(format string, args ...any) toolResult {
	return toolResult{text: fmt.Sprintf(format, args...), isError: true}
}

// addTool registers a handler and puts the session's undelivered events at
// the top of every result it returns.
func addTool[In any](s *Server, t *mcp.Tool, h func(ctx context.Context, in In) toolResult) error {
	schema, err := inputSchema[In]()
	if err != nil {
		return err
	}
	t.InputSchema = schema
	mcp.AddTool(s.mcp, t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
		r := h(ctx, in)
		res := &mcp.CallToolResult{IsError: r.isError}
		if notice := s.claimNotices(ctx, req); notice != "" {
			res.Content = append(res.Content, &mcp.TextContent{Text: notice})
		}
		res.Content = append(res.Content, &mcp.TextContent{Text: r.text})
		return res, nil, nil
	})
	return nil
}

// claimNotices takes the undelivered events for this result. Events this
// session already reported itself are passed over silently (their cursor
// still moves). A call whose client has gone claims nothing: its result
// may never be written.
func (s *Server) claimNotices(ctx context.Context, req *mcp.CallToolRequest) string {
	if ctx.Err() != nil {
		return ""
	}
	key := deliveryKey(req)
	direct := key == ""
	if direct {
		// Not through Run's connection: nothing will settle the claim, so
		// deliver at most once rather than never.
		key = fmt.Sprintf("direct-%d", s.directCalls.Add(1))
	}
	evs, err := s.deliveries.take(key)
	if err != nil {
		s.logError(err)
		return ""
	}
	if direct {
		defer func() {
			if err := s.deliveries.written(key); err != nil {
				s.logError(err)
			}
		}()
	}
	var show []bgtasks.Event
	for _, e := range evs {
		if !s.told.has(e) {
			show = append(show, e)
		}
	}
	return noticeBlock(show)
}

func (s *Server) addTools() error {
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true}
	return errors.Join(
		addTool(s, &mcp.Tool{Name: "bash", Title: "Run a command (supervised)", Description: bashDescription}, s.bash),
		addTool(s, &mcp.Tool{Name: "bg_tasks", Title: "List tasks", Description: bgTasksDescription, Annotations: readOnly}, s.bgTasks),
		addTool(s, &mcp.Tool{Name: "bg_logs", Title: "Read a task's output", Description: bgLogsDescription, Annotations: readOnly}, s.bgLogs),
		addTool(s, &mcp.Tool{Name: "bg_send", Title: "Type into a task", Description: bgSendDescription}, s.bgSend),
		addTool(s, &mcp.Tool{Name: "bg_wait", Title: "Wait for a task", Description: bgWaitDescription, Annotations: readOnly}, s.bgWait),
		addTool(s, &mcp.Tool{Name: "bg_kill", Title: "Stop a task", Description: bgKillDescription}, s.bgKill),
		addTool(s, &mcp.Tool{Name: "bg_detach", Title: "Detach the running bash call", Description: bgDetachDescription}, s.bgDetach),
		s.addWatchTools(),
	)
}

// capWait applies the server's MaxWait to a wait the model asked for (zero:
// none asked) and says which limit applies.
func (s *Server) capWait(asked time.Duration) (time.Duration, bool) {
	if s.cfg.MaxWait > 0 && (asked <= 0 || asked > s.cfg.MaxWait) {
		return s.cfg.MaxWait, true
	}
	return asked, false
}
