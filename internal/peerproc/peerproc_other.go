//go:build !linux

package peerproc

import (
	"errors"
	"net/netip"
)

// Supported: the lookups need Linux's /proc.
const Supported = false

var errUnsupported = errors.New("finding a connection's process needs Linux (/proc)")

// Lookup cannot tell who sent a connection here.
func Lookup(client, server netip.AddrPort) (*Conn, error) { return nil, errUnsupported }

// Stat cannot describe a process here.
func Stat(pid int) (*Proc, error) { return nil, errUnsupported }

// Ancestry is empty here.
func Ancestry(pid int) []*Proc { return nil }

// Args is nil here.
func Args(pid int) []string { return nil }

// BeyondLaunchers cannot tell here.
func BeyondLaunchers(pid int) (*Proc, error) { return nil, errUnsupported }

// ExeBase is the comm (always empty here).
func (p *Proc) ExeBase() string { return p.Comm }

// MarkTask does nothing here: nothing reads the mark.
func MarkTask() error { return nil }
