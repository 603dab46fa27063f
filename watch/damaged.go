package watch

import (
	"errors"
	"fmt"
	"os"
	"time"
)

// ErrDamaged: a watcher's spec.json or state.json cannot be decoded, or
// the runner marked it so (a check of it panicked: State.Damaged). Such
// a watcher is listed and shown as damaged (Watcher.Damaged), pausing it
// succeeds (it is stopped), resuming it is refused and deleting it
// removes it, as bgtasks does for a task whose files are damaged.
var ErrDamaged = errors.New("damaged")

// decodeError is a file that was read but is not what was written: cut
// short, overwritten, garbage.
type decodeError struct {
	path string
	err  error
}

func (e *decodeError) Error() string { return fmt.Sprintf("read %s: %v", e.path, e.err) }
func (e *decodeError) Unwrap() error { return e.err }

// damagedError says which of a watcher's files is damaged and what to do.
type damagedError struct {
	id, file string
	cause    error
	spec     *Spec  // the spec, when only the state is damaged
	why      string // instead of file and cause: the runner marked it (State.Damaged)
}

func (e *damagedError) Error() string {
	if e.why != "" {
		return fmt.Sprintf("watcher %s is damaged: %s; `hangdog watch rm %s` removes it", e.id, e.why, e.id)
	}
	return fmt.Sprintf("watcher %s is damaged: its %s cannot be read (%v); `hangdog watch rm %s` removes it", e.id, e.file, e.cause, e.id)
}

func (e *damagedError) Is(target error) bool { return target == ErrDamaged }

// damaged makes a listable watcher of one whose files cannot be decoded,
// instead of hiding it: the spec it has (or a stand-in, whose owner is
// nobody's, so only a person at a terminal acts on it) and a paused state
// whose reason is the damage. Nothing is written: the files stay as they
// are for whoever wants to look at them.
func (s *Store) damaged(de *damagedError) *Watcher {
	at := time.Now()
	if fi, err := os.Stat(s.watcherDir(de.id)); err == nil {
		at = fi.ModTime()
	}
	spec := de.spec
	if spec == nil {
		spec = &Spec{ID: de.id, Target: "(unknown: its spec.json is damaged)", Created: at}
	}
	why := fmt.Sprintf("%s is damaged (%v)", de.file, de.cause)
	if de.why != "" {
		why = de.why
	}
	st := &State{Paused: true, Since: &at, Reason: why + "; `hangdog watch rm " + de.id + "` removes it"}
	return &Watcher{Spec: spec, State: st, Damaged: why}
}

// loadWatcher is load, with a damaged watcher made listable.
func (s *Store) loadWatcher(id string) (*Watcher, error) {
	spec, st, err := s.load(id)
	var de *damagedError
	if errors.As(err, &de) {
		return s.damaged(de), nil
	}
	if err != nil {
		return nil, err
	}
	return &Watcher{Spec: spec, State: st}, nil
}
