//go:build !linux

package mcpproxy

// control is the task's control socket, served on Linux only.
type control struct{}

func (p *proxy) listenControl() *control { return nil }

func (c *control) close() {}
