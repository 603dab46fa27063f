//go:build !linux

package mcpserver

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Server is unavailable off Linux: tasks are supervised through /proc and
// Linux PTYs.
type Server struct{}

// New says that hangdog mcp needs Linux.
func New(cfg Config) (*Server, error) {
	return nil, errors.New("hangdog mcp runs on Linux only: its supervisor needs /proc and Linux PTYs")
}

// Consumer is empty: there is no session.
func (s *Server) Consumer() string { return "" }

// Run never serves.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	return errors.New("hangdog mcp runs on Linux only")
}
