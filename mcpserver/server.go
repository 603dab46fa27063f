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
	"github.com/hangdog/hangdog/watchctl"
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
	cancels    map[string]string    // request key → the reason its client gave for cancelling it

	shell     *shellState   // the session's cwd (and exports) between bash calls
	spare     *spare        // the supervisor started for the next bash call
	closed    chan struct{} // closed when Run returns: the session's watchers stop
	closeOnce sync.Once
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
		cancels:    map[string]string{},
		closed:     make(chan struct{}),
	}
	s.spare = &spare{logErr: s.logError}
	if s.limit <= 0 {
		s.limit = DefaultOutputLimit
	}
	shell, err := newShellState(cfg.CarryExports)
	if err != nil {
		return nil, err
	}
	s.shell = shell
	if err := s.deliveries.register(); err != nil {
		shell.close()
		return nil, err
	}
	if err := s.initMCP(); err != nil {
		return nil, err
	}
	return s, nil
}

// initMCP makes the SDK server with hangdog's tools and resources: what a
// client lists, shared by New and Tools.
func (s *Server) initMCP() error {
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "hangdog", Title: "hangdog", Version: version(s.cfg.Version)},
		&mcp.ServerOptions{
			Instructions: instructions, Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
			// The SDK keeps who subscribed to what; any task's log may be.
			SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
			UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
		})
	if err := s.addTools(); err != nil {
		return fmt.Errorf("mcpserver: %w", err)
	}
	s.addResources()
	return nil
}

// Consumer is the event-log consumer name of this session.
func (s *Server) Consumer() string { return s.cfg.Consumer }

// Run serves one session over t until the client goes away or ctx is done.
// Tool calls still running then are cancelled: their commands are stopped,
// as a foreground call's command goes with its caller.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	s.spare.fill()
	err := s.mcp.Run(ctx, &deliveryTransport{inner: t, d: s.deliveries, onErr: s.logError, onCancel: s.noteCancel,
		// The next spare starts once a reply is out, not while the call
		// that took the last one runs: its start-up, a Go process, is
		// about 3 ms of CPU on the call's path on two cores.
		onReplied: s.spare.fill,
		onUnread:  s.told.untell})
	s.closeOnce.Do(func() {
		close(s.closed)
		s.spare.close()
		s.shell.close()
	})
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

// toolResult is what a tool handler produces before notifications are added:
// the text a model reads and the fields a harness reads (task for the tools
// about one task, tasks for bg_tasks).
type toolResult struct {
	text    string
	isError bool
	task    *taskOutput
	tasks   *tasksOutput
	// approval: approve_create's link, for its structured result.
	approval *watchctl.LinkInfo
}

func errorResult(format string, args ...any) toolResult {
	return toolResult{text: fmt.Sprintf(format, args...), isError: true}
}

// taskStructured is the structuredContent of a tool about one task: what the
// handler filled in, else (a wrong call) the error.
func taskStructured(r toolResult) taskOutput {
	if r.task != nil {
		return *r.task
	}
	return taskOutput{Status: "error", Error: r.text}
}

func tasksStructured(r toolResult) tasksOutput {
	if r.tasks != nil {
		return *r.tasks
	}
	return tasksOutput{Tasks: []taskInfo{}, Error: r.text}
}

type requestKey struct{}

// callRequest is the request of the tool call ctx belongs to, for a handler
// that talks back during the call (progress); nil outside one.
func callRequest(ctx context.Context) *mcp.CallToolRequest {
	req, _ := ctx.Value(requestKey{}).(*mcp.CallToolRequest)
	return req
}

// addTool registers a handler and puts the session's undelivered events at
// the top of every result it returns. With Config.Structured, structured
// gives the result's structuredContent, whose type the SDK makes the tool's
// outputSchema; without, the tool has neither (see Config.Structured).
func addTool[In, Out any](s *Server, t *mcp.Tool, h func(ctx context.Context, in In) toolResult, structured func(toolResult) Out) error {
	schema, err := inputSchema[In]()
	if err != nil {
		return err
	}
	t.InputSchema = schema
	run := func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, toolResult) {
		r := h(context.WithValue(ctx, requestKey{}, req), in)
		res := &mcp.CallToolResult{IsError: r.isError}
		if notice := s.claimNotices(ctx, req); notice != "" {
			res.Content = append(res.Content, &mcp.TextContent{Text: notice})
		}
		res.Content = append(res.Content, &mcp.TextContent{Text: r.text})
		return res, r
	}
	if !s.cfg.Structured {
		mcp.AddTool(s.mcp, t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
			res, _ := run(ctx, req, in)
			return res, nil, nil
		})
		return nil
	}
	mcp.AddTool(s.mcp, t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		res, r := run(ctx, req, in)
		return res, structured(r), nil
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

// addTools registers the tools. The annotations tell a client which calls
// it may make without asking: reading tasks and waiting change nothing;
// bg_kill ends processes; bash runs anything.
func (s *Server) addTools() error {
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}
	return errors.Join(
		addTool(s, &mcp.Tool{Name: "bash", Title: "Run a command (supervised)", Description: bashDescription,
			Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), OpenWorldHint: ptr(true)}}, s.bash, taskStructured),
		addTool(s, &mcp.Tool{Name: "bg_tasks", Title: "List tasks", Description: bgTasksDescription, Annotations: readOnly}, s.bgTasks, tasksStructured),
		addTool(s, &mcp.Tool{Name: "bg_logs", Title: "Read a task's output", Description: bgLogsDescription, Annotations: readOnly}, s.bgLogs, taskStructured),
		addTool(s, &mcp.Tool{Name: "bg_send", Title: "Type into a task", Description: bgSendDescription,
			Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), OpenWorldHint: ptr(false)}}, s.bgSend, taskStructured),
		addTool(s, &mcp.Tool{Name: "bg_wait", Title: "Wait for a task", Description: bgWaitDescription, Annotations: readOnly}, s.bgWait, taskStructured),
		addTool(s, &mcp.Tool{Name: "bg_kill", Title: "Stop a task", Description: bgKillDescription,
			Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(false)}}, s.bgKill, taskStructured),
		addTool(s, &mcp.Tool{Name: "bg_detach", Title: "Detach the running bash call", Description: bgDetachDescription,
			Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(false)}}, s.bgDetach, taskStructured),
		s.addWatchTools(),
		s.addApprovalTools(),
	)
}

func ptr[T any](v T) *T { return &v }

// capWait applies the server's MaxWait to a wait the model asked for (zero:
// none asked) and says which limit applies.
func (s *Server) capWait(asked time.Duration) (time.Duration, bool) {
	if s.cfg.MaxWait > 0 && (asked <= 0 || asked > s.cfg.MaxWait) {
		return s.cfg.MaxWait, true
	}
	return asked, false
}
