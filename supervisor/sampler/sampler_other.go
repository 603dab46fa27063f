//go:build !linux

package sampler

import "os"

// Sampler is a stub outside Linux: there is no /proc to read.
type Sampler struct{}

// New returns a sampler whose Sample always fails with ErrUnsupported.
func New(rootPID int, tty *os.File) *Sampler { return &Sampler{} }

// Sample fails with ErrUnsupported.
func (s *Sampler) Sample() (Tree, error) { return Tree{}, ErrUnsupported }
