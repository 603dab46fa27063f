//go:build linux

package mcpserver

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tools lists the tools a client sees, as tools/list answers them (with
// --structured when structured is set), and the server's instructions: what
// the generated reference documents. No session is made, nothing is
// written and no tool runs; the list goes over the SDK's in-memory
// transport, so it is exactly what the protocol carries.
func Tools(ctx context.Context, structured bool) (tools []*mcp.Tool, instr string, err error) {
	s := &Server{cfg: Config{Structured: structured}}
	if err := s.initMCP(); err != nil {
		return nil, "", err
	}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.mcp.Connect(ctx, st, nil)
	if err != nil {
		return nil, "", fmt.Errorf("mcpserver: list tools: %w", err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "hangdog-reference"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		return nil, "", fmt.Errorf("mcpserver: list tools: %w", err)
	}
	defer cs.Close()
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, "", fmt.Errorf("mcpserver: list tools: %w", err)
		}
		tools = append(tools, t)
	}
	return tools, cs.InitializeResult().Instructions, nil
}
