//go:build linux

package mcpserver

import (
	"strings"

	"github.com/hangdog/hangdog/internal/termtext"
)

// A client cancels a call (notifications/cancelled) for one of two
// reasons: a person stopped it (Esc in Claude Code), or the client gave up
// waiting (its request timeout: 60 s in the TypeScript SDK, the Inspector,
// Codex). The first stops the command, as Ctrl-C would; the second must
// not, or a client with a shorter timeout than the command would kill every
// build and server it runs (issue 13: "a client timeout never kills a
// server"). The protocol has no field for which it is, only the free-text
// reason the SDKs fill in: "Request timed out" (TypeScript), "context
// deadline exceeded" (Go). A timeout detaches the command instead; its
// detach event then tells the session, since the call's own result is never
// read. A cancel with no reason, or any other, stops it.

// noteCancel records the reason a client gave for cancelling a call.
func (s *Server) noteCancel(key, reason string) {
	if key == "" {
		return
	}
	s.mu.Lock()
	s.cancels[key] = reason
	s.mu.Unlock()
}

// cancelReason is the reason recorded for call key, and forgets it.
func (s *Server) cancelReason(key string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.cancels[key]
	delete(s.cancels, key)
	return r
}

// clientTimedOut: the reason says the client stopped waiting for time.
func clientTimedOut(reason string) bool {
	r := strings.ToLower(reason)
	return strings.Contains(r, "timed out") || strings.Contains(r, "timeout") || strings.Contains(r, "deadline exceeded")
}

// timeoutDetachReason is the detach's reason for a call its client gave up
// on.
func timeoutDetachReason(reason string) string {
	return "the client stopped waiting for the call (" + termtext.OneLine(reason) + "); hangdog moved it to the background instead of stopping it"
}
