//go:build !linux

package watchctl

import (
	"errors"
	"fmt"
)

// startRunner needs taskctl's supervisor, which runs on Linux only.
func (s *Service) startRunner(id string) (string, error) {
	return "", fmt.Errorf("start watcher %s's runner: %w: hangdog's tasks need Linux", id, errors.ErrUnsupported)
}

// ensureRunner needs taskctl's supervisor, which runs on Linux only.
func (s *Service) ensureRunner() (string, error) {
	return "", fmt.Errorf("start the watchers' runner: %w: hangdog's tasks need Linux", errors.ErrUnsupported)
}
