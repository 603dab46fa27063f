package mcpserver

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
)

// Config is what a Server needs from its caller.
type Config struct {
	// Registry is the user's task registry.
	Registry *bgtasks.Registry
	// Consumer names this session's cursor in the event log. Empty picks a
	// fresh name (DefaultConsumer); a harness that restarts the server and
	// wants to keep its cursor passes the same name each time.
	Consumer string
	// MaxWait caps how long any call blocks: a bash call still running then
	// is detached (never killed), a bg_wait returns "still running". Zero
	// means no cap. Set it below the client's own tool-call timeout.
	MaxWait time.Duration
	// OutputLimit is how much plain text of output a result may carry;
	// zero means DefaultOutputLimit.
	OutputLimit int
	// CarryExports sets the variables a bash call exported again in the
	// session's later calls, as the cwd always is. Off by default: a
	// variable set for one command (a token, CI=1, a PATH change) then
	// silently applies to every later one, which the model may not expect
	// and the user did not see.
	CarryExports bool
	// Structured gives every tool an outputSchema and every result its
	// fields as structuredContent. Off by default: Claude Code and Codex
	// show a result's structuredContent to the model in place of its text
	// when it has one (e2e/claudecode and e2e/codex saw the JSON, without
	// the notifications and next steps), so it is for harnesses that read
	// the fields.
	Structured bool
	// LeftRunning, when set, is told of each task a bash call leaves
	// running: started in the background, or detached (wait and reason
	// say for what). `hangdog mcp` started by Claude Code records it for
	// the session's Stop hook, which waits for the ones that can end by
	// themselves.
	LeftRunning func(taskID, command, wait, reason string, started bool) error
	// Version is reported to clients; empty means "dev".
	Version string
	// Log receives the server's own problems (stderr for stdio servers);
	// nil discards them.
	Log io.Writer
}

// DefaultMaxWait is `hangdog mcp --max-wait`'s default: below the 60 s
// after which the TypeScript SDK's clients (the MCP Inspector among them)
// and Codex give up on a tool call, so a long call comes back detached, with
// its task id and output so far, before its client stops waiting. A client
// that waits longer (Claude Code) may raise it; a client that gives up
// sooner does not kill the command either (cancel.go).
const DefaultMaxWait = 50 * time.Second

// DefaultConsumer is the consumer name of a session started without one:
// unique per process and start, and a valid consumer name.
func DefaultConsumer() string {
	return fmt.Sprintf("mcp-%d-%d", os.Getpid(), time.Now().UnixNano())
}

// Terminal size of an agent's commands. Nobody looks at the screen, so it is
// roomy: programs that fit output to the width wrap less.
const (
	agentRows = 50
	agentCols = 160
)
