package bgtasks

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/hangdog/hangdog/internal/safefile"
)

// WithConsumer runs fn holding the consumer's own lock, so that processes
// reading as the same consumer take turns at reading its undelivered
// events, handing them over and moving its cursor (Undelivered, then
// MarkDelivered): two readers sharing a name then never both deliver the
// same event. The registry's lock is not held meanwhile, so a slow hand-over
// delays only readers of this consumer.
func (r *Registry) WithConsumer(consumer string, fn func() error) error {
	path, err := r.cursorPath(consumer)
	if err != nil {
		return err
	}
	lockPath := filepath.Join(filepath.Dir(path), consumer+".lock")
	f, err := os.OpenFile(lockPath, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("lock event consumer %s: %w", consumer, err)
	}
	defer f.Close()
	if err := safefile.Lock(f); err != nil {
		return fmt.Errorf("lock event consumer %s: %w", consumer, err)
	}
	defer safefile.Unlock(f)
	return fn()
}
