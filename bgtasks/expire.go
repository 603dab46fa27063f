package bgtasks

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/hangdog/hangdog/internal/safefile"
)

// Expired is what one PruneExpired removed.
type Expired struct {
	Tasks  []string // ids of the tasks removed
	Events int      // lines dropped from the event log
}

// PruneExpired removes the tasks that ended more than keep ago, and the
// events older than that from a log grown past compactEventsFrom, at most
// once per interval across every hangdog process sharing this home. A home's
// first call only starts the clock: the first removal comes an interval
// later, never on a registry's first use. keep <= 0 removes nothing. Another
// process already pruning makes this a no-op.
//
// The time of the last prune is kept in <home>/last-prune, which also serves
// as the lock, so checking whether a prune is due costs one small read.
func (r *Registry) PruneExpired(keep, interval time.Duration) (Expired, error) {
	var out Expired
	if keep <= 0 {
		return out, nil
	}
	f, err := os.OpenFile(r.pruneStampPath(), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return out, fmt.Errorf("open %s: %w", r.pruneStampPath(), err)
	}
	defer f.Close()
	locked, err := safefile.TryLock(f)
	if err != nil || !locked {
		return out, err
	}
	// Closing f releases the lock.
	now := time.Now()
	b, err := io.ReadAll(io.LimitReader(f, 64))
	if err != nil {
		return out, fmt.Errorf("read %s: %w", r.pruneStampPath(), err)
	}
	last, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	// A stamp from the future (the clock was set back) would stop pruning
	// until that day: start again from now instead.
	fresh := err != nil || time.Unix(last, 0).After(now)
	if !fresh && now.Sub(time.Unix(last, 0)) < interval {
		return out, nil
	}
	// Written before the removal, so a prune that fails or is killed
	// half-way is not retried by every process until it succeeds.
	stamp := strconv.FormatInt(now.Unix(), 10) + "\n"
	if _, err := f.WriteAt([]byte(stamp), 0); err != nil {
		return out, fmt.Errorf("write %s: %w", r.pruneStampPath(), err)
	}
	if err := f.Truncate(int64(len(stamp))); err != nil {
		return out, fmt.Errorf("write %s: %w", r.pruneStampPath(), err)
	}
	if fresh {
		return out, nil
	}
	out.Tasks, err = r.Prune(keep)
	var cerr error
	out.Events, cerr = r.compactEvents(now.Add(-keep))
	return out, errors.Join(err, cerr)
}
