package watch

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/internal/safefile"
)

// State is what a watcher has learnt and spent, rewritten atomically on
// every check (state.json beside spec.json).
type State struct {
	Baselined    bool            `json:"baselined"`
	Hash         string          `json:"hash,omitempty"`
	Keys         []string        `json:"keys,omitempty"`  // new-items: every key reported (or baselined)
	Holds        bool            `json:"holds,omitempty"` // edge-triggered checks: held at the last check
	Value        string          `json:"value,omitempty"` // what the check read last ("95.10")
	ETag         string          `json:"etag,omitempty"`
	LastModified string          `json:"last_modified,omitempty"`
	Cursor       json.RawMessage `json:"cursor,omitempty"`

	Checks      int        `json:"checks"`
	QuietChecks int        `json:"quiet_checks"`
	Skipped     int        `json:"skipped_checks"`
	LastCheck   *time.Time `json:"last_check,omitempty"`
	LastError   string     `json:"last_error,omitempty"`
	Unreachable int        `json:"unreachable_in_a_row,omitempty"`
	Errors      int        `json:"errors_in_a_row,omitempty"`

	FiresUsed int         `json:"fires_used"`
	FireTimes []time.Time `json:"fire_times,omitempty"` // the last hour's, for the wakes-per-hour cap
	LastFire  *time.Time  `json:"last_fire,omitempty"`
	// Pending are events queued and not yet known to be in the event log:
	// a fire among them is reserved (counted in FiresUsed). Whoever finds
	// them delivers each unless the log already holds its dedupe key.
	Pending []bgtasks.Event `json:"pending,omitempty"`
	// Judging is a match waiting for the decision model's verdict on the
	// watcher's condition (judge.go); while it waits, checks ask again and
	// observe nothing.
	Judging *Judging `json:"judging,omitempty"`

	Paused bool       `json:"paused"`
	Reason string     `json:"reason,omitempty"` // why it is paused
	Since  *time.Time `json:"paused_at,omitempty"`
	// Expired: the expiry was reached and said so once.
	Expired bool `json:"expired,omitempty"`
	// MisfitTold: a trigger link's delivery lacked what the check reads
	// and the owner was told, once.
	MisfitTold bool `json:"misfit_told,omitempty"`

	TaskID string `json:"task_id,omitempty"` // the background task running it

	// Damaged: the runner cannot run this watcher (a check of it
	// panicked), and says why; it is listed as damaged (ErrDamaged).
	Damaged string `json:"damaged,omitempty"`
}

// Watcher is a watcher as listings show it.
type Watcher struct {
	Spec  *Spec  `json:"spec"`
	State *State `json:"state"`
	// Damaged says which of its files could not be decoded (ErrDamaged);
	// such a watcher is stopped and can only be removed.
	Damaged string `json:"damaged,omitempty"`
}

// maxKeys bounds the remembered item keys; the oldest go first.
const maxKeys = 2000

// ErrNotFound: no such watcher, or not the caller's: the two look the same,
// so a session cannot learn of, or touch, another's watchers.
var ErrNotFound = errors.New("no such watcher")

// Store is the watchers of one home: <home>/watchers/<id>/{spec,state}.json,
// each watcher's files under its own flock (<id>/lock), allocation and the
// per-owner count under <home>/watchers/lock. Files are 0600 in 0700
// directories and every write is temp+rename, so any number of processes
// share it and a crash leaves the old state or the new, never a mix.
type Store struct {
	reg *bgtasks.Registry
	dir string
	// Limits apply to create and resume; OpenStore sets DefaultLimits and
	// a front end replaces them with the watchers.* settings.
	Limits Limits
	links  *linkIndex // token hash → link watcher, for ByLinkToken
}

// OpenStore opens (creating) the watchers directory of the registry's home.
func OpenStore(reg *bgtasks.Registry) (*Store, error) {
	dir := filepath.Join(reg.Home(), "watchers")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("watchers directory: %w", err)
	}
	return &Store{reg: reg, dir: dir, Limits: DefaultLimits(), links: newLinkIndex()}, nil
}

// Registry is the task registry the store's events go to.
func (s *Store) Registry() *bgtasks.Registry { return s.reg }

func (s *Store) watcherDir(id string) string { return filepath.Join(s.dir, id) }

// ValidID: w1, w2, …
func ValidID(id string) bool {
	if len(id) < 2 || len(id) > 20 || id[0] != 'w' || id[1] == '0' {
		return false
	}
	_, err := strconv.ParseUint(id[1:], 10, 64)
	return err == nil
}

func writeJSON(path string, v any) error {
	b, err := encodeJSON(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	return safefile.Write(path, b)
}

// encodeJSON is a record as the home's files hold it.
func encodeJSON(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

func readJSON(path string, v any) error {
	b, err := safefile.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return &decodeError{path, err}
	}
	return nil
}

func (s *Store) load(id string) (*Spec, *State, error) {
	if !ValidID(id) {
		return nil, nil, fmt.Errorf("%q: %w (watcher ids look like w3; `hangdog watch ls` lists them)", id, ErrNotFound)
	}
	var spec Spec
	var st State
	dir := s.watcherDir(id)
	var de *decodeError
	if err := readJSON(filepath.Join(dir, "spec.json"), &spec); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, fmt.Errorf("watcher %s: %w", id, ErrNotFound)
		}
		if errors.As(err, &de) {
			return nil, nil, &damagedError{id: id, file: "spec.json", cause: de.err}
		}
		return nil, nil, err
	}
	if err := readJSON(filepath.Join(dir, "state.json"), &st); err != nil && !errors.Is(err, fs.ErrNotExist) {
		if errors.As(err, &de) {
			return nil, nil, &damagedError{id: id, file: "state.json", cause: de.err, spec: &spec}
		}
		return nil, nil, err
	}
	if st.Damaged != "" {
		return nil, nil, &damagedError{id: id, spec: &spec, why: st.Damaged}
	}
	return &spec, &st, nil
}

// update runs fn on the watcher's state under its lock and writes the
// state back when fn returns nil. It does not check the owner.
func (s *Store) update(id string, fn func(*Spec, *State) error) error {
	return s.updateSeen(id, nil, fn)
}

// updateSeen is update, which also keeps in c (when not nil) the records
// as it leaves them, for look.
func (s *Store) updateSeen(id string, c *seen, fn func(*Spec, *State) error) error {
	dir := s.watcherDir(id)
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("watcher %s: %w", id, ErrNotFound)
	} else if err != nil {
		return fmt.Errorf("watcher %s: %w", id, err)
	}
	if c != nil {
		c.spec = nil // until this update has left the files as c says
	}
	err := safefile.WithLock(filepath.Join(dir, "lock"), func() error {
		spec, st, err := s.load(id)
		if err != nil {
			return err
		}
		var before []byte
		if c != nil {
			if before, err = json.Marshal(st); err != nil {
				return fmt.Errorf("encode watcher %s's state: %w", id, err)
			}
		}
		if err := fn(spec, st); err != nil {
			if errors.Is(err, errSkipWrite) {
				c.keep(dir, spec, before)
			}
			return err
		}
		b, err := encodeJSON(st)
		if err != nil {
			return fmt.Errorf("encode watcher %s's state: %w", id, err)
		}
		if err := safefile.Write(filepath.Join(dir, "state.json"), b); err != nil {
			return err
		}
		c.keep(dir, spec, b)
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) { // deleted between the stat and the lock
		return fmt.Errorf("watcher %s: %w", id, ErrNotFound)
	}
	return err
}

// seen is a watcher's records as one runner last left them under the
// watcher's lock, with both files' identity then (inode, size, modification
// time): a look that finds both files as they were needs neither the lock
// nor a read. A quiet check looked twice (its limits, then its update),
// each time taking the lock and reading both files, a few dozen system
// calls, each waking the runner's threads; the first look is now two
// stats (docs/benchmarks.md, "Idle watchers").
type seen struct {
	spec            *Spec  // nil: nothing kept
	state           []byte // the state, encoded
	specAt, stateAt os.FileInfo
}

// keep records spec and the encoded state as the files in dir now hold
// them; it forgets all on a failed stat. A nil c keeps nothing.
func (c *seen) keep(dir string, spec *Spec, state []byte) {
	if c == nil {
		return
	}
	c.spec = nil
	specAt, err := os.Stat(filepath.Join(dir, "spec.json"))
	if err != nil {
		return
	}
	stateAt, err := os.Stat(filepath.Join(dir, "state.json"))
	if err != nil {
		return
	}
	*c = seen{spec: spec, state: state, specAt: specAt, stateAt: stateAt}
}

// look gives peek watcher id's records as c kept them, if neither file
// has changed since; false when they have, or nothing is kept, or peek
// says the records must be looked at under the lock (update). What peek
// gets is its own copy. A change another process makes replaces a file
// (temp+rename: a new inode), so it is seen; a stale look would only
// delay what the update that follows, under the lock, sees anyway.
func (s *Store) look(id string, c *seen, peek func(*Spec, *State) bool) bool {
	if c.spec == nil {
		return false
	}
	dir := s.watcherDir(id)
	for _, f := range []struct {
		name string
		at   os.FileInfo
	}{{"spec.json", c.specAt}, {"state.json", c.stateAt}} {
		now, err := os.Stat(filepath.Join(dir, f.name))
		if err != nil || !os.SameFile(now, f.at) || now.Size() != f.at.Size() || !now.ModTime().Equal(f.at.ModTime()) {
			c.spec = nil
			return false
		}
	}
	var st State
	if err := json.Unmarshal(c.state, &st); err != nil {
		c.spec = nil
		return false
	}
	return peek(c.spec, &st)
}

// errSkipWrite from an update's fn: nothing changed, write nothing.
var errSkipWrite = errors.New("no change")

func (s *Store) read(id string, fn func(*Spec, *State) error) error {
	err := s.update(id, func(sp *Spec, st *State) error {
		if err := fn(sp, st); err != nil {
			return err
		}
		return errSkipWrite
	})
	if errors.Is(err, errSkipWrite) {
		return nil
	}
	return err
}

// Get returns the watcher if owner may see it (a damaged one too).
func (s *Store) Get(id, owner string) (*Watcher, error) {
	w, err := s.loadWatcher(id)
	if err != nil {
		return nil, err
	}
	if w.Spec.Owner != owner {
		return nil, fmt.Errorf("watcher %s: %w", id, ErrNotFound)
	}
	return w, nil
}

// Lookup returns the watcher whoever owns it, for a caller the owner check
// does not apply to (a person at a terminal: watchctl.Caller).
func (s *Store) Lookup(id string) (*Watcher, error) { return s.loadWatcher(id) }

// List returns the watchers the scope sees, oldest first; a damaged one
// is listed as such.
func (s *Store) List(scope bgtasks.Scope) ([]*Watcher, error) {
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, fmt.Errorf("list watchers: %w", err)
	}
	var out []*Watcher
	for _, e := range ents {
		if !e.IsDir() || !ValidID(e.Name()) {
			continue
		}
		w, err := s.loadWatcher(e.Name())
		if err != nil {
			continue // deleted meanwhile, or half-created
		}
		if scope.Sees(w.Spec.Owner, w.Spec.Project) {
			out = append(out, w)
		}
	}
	slices.SortFunc(out, func(a, b *Watcher) int {
		x, _ := strconv.Atoi(a.Spec.ID[1:])
		y, _ := strconv.Atoi(b.Spec.ID[1:])
		return x - y
	})
	return out, nil
}

// activeOf counts owner's watchers that are not paused. Called under the
// store lock.
func (s *Store) activeOf(owner string) int {
	all, _ := s.List(bgtasks.Scope{All: true})
	n := 0
	for _, w := range all {
		if w.Spec.Owner == owner && !w.State.Paused {
			n++
		}
	}
	return n
}

func (s *Store) capRefusal(owner string) error {
	limit := s.Limits.orDefaults().MaxActivePerOwner
	if owner == "" || s.activeOf(owner) < limit {
		return nil
	}
	return refuse("watchers of "+owner, strconv.Itoa(limit)+" active",
		fmt.Sprintf("at most %d active watchers per owner (watchers.maxActivePerOwner); pause or delete one first (`hangdog watch ls`)", limit))
}

// add stores a new watcher with its baseline state and returns its id.
func (s *Store) add(spec *Spec, st *State) (string, error) { return s.addWith(spec, st, nil) }

// addWith is add with files of the kind's own (a link's token, secret and
// inbox) written by files into the new directory before the spec, so a
// listed watcher is complete; if files fails, the directory goes.
func (s *Store) addWith(spec *Spec, st *State, files func(id string) error) (string, error) {
	var id string
	err := safefile.WithLock(filepath.Join(s.dir, "lock"), func() error {
		if err := s.capRefusal(spec.Owner); err != nil {
			return err
		}
		n := 0
		if b, err := os.ReadFile(filepath.Join(s.dir, "counter")); err == nil {
			n, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		for {
			n++
			id = "w" + strconv.Itoa(n)
			if err := os.Mkdir(s.watcherDir(id), 0o700); err == nil {
				break
			} else if !errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("create watcher %s: %w", id, err)
			}
		}
		if err := safefile.Write(filepath.Join(s.dir, "counter"), []byte(strconv.Itoa(n)+"\n")); err != nil {
			return err
		}
		spec.ID = id
		if err := writeJSON(filepath.Join(s.watcherDir(id), "state.json"), st); err != nil {
			return err
		}
		if files != nil {
			if err := files(id); err != nil {
				_ = os.RemoveAll(s.watcherDir(id))
				return err
			}
		}
		// spec.json last: a watcher is listed once it is complete.
		return writeJSON(filepath.Join(s.watcherDir(id), "spec.json"), spec)
	})
	if err != nil {
		return "", err
	}
	s.touchChanged() // a running runner adopts it
	return id, nil
}

// Pause stops the watcher with a reason (the runner, told by the changed
// file, stops checking it); only the owner may. A damaged watcher is stopped already.
func (s *Store) Pause(id, owner, reason string) error {
	paused := false
	err := s.owned(id, owner, func(_ *Spec, st *State) error {
		if st.Paused {
			return errSkipWrite
		}
		pause(st, orElse(reason, "paused by its owner"), time.Now())
		paused = true
		return nil
	})
	if errors.Is(err, ErrDamaged) {
		return nil
	}
	if paused && err == nil {
		s.touchChanged() // the runner stops checking it at once
	}
	return err
}

// Resume clears the pause and its reason, keeping the fires used; the
// caller then starts its runner again. An expired watcher, or one whose
// budget is spent, cannot resume (it would pause again at once).
func (s *Store) Resume(id, owner string) (*Watcher, error) {
	var w *Watcher
	err := safefile.WithLock(filepath.Join(s.dir, "lock"), func() error {
		return s.owned(id, owner, func(spec *Spec, st *State) error {
			w = &Watcher{Spec: spec, State: st}
			if !st.Paused {
				return errSkipWrite
			}
			if spec.ExpiresAt != nil && !time.Now().Before(*spec.ExpiresAt) {
				return fmt.Errorf("watcher %s expired at %s; create a new one", id, spec.ExpiresAt.Format(time.RFC3339))
			}
			if spec.MaxFires > 0 && st.FiresUsed >= spec.MaxFires {
				return fmt.Errorf("watcher %s has used all %d of its fires (max_fires); create a new one", id, spec.MaxFires)
			}
			if err := s.capRefusal(spec.Owner); err != nil {
				return err
			}
			st.Paused, st.Reason, st.Since = false, "", nil
			st.Unreachable, st.Errors = 0, 0
			return nil
		})
	})
	if err == nil {
		s.touchChanged() // a running runner adopts it again
	}
	return w, err
}

// Delete removes the watcher, a damaged one too; its runner sees the
// directory go and exits.
func (s *Store) Delete(id, owner string) (*Watcher, error) {
	var w *Watcher
	remove := func() error {
		gone := filepath.Join(s.dir, ".removing-"+id)
		if err := os.Rename(s.watcherDir(id), gone); err != nil {
			return fmt.Errorf("delete watcher %s: %w", id, err)
		}
		if err := os.RemoveAll(gone); err != nil {
			return fmt.Errorf("delete watcher %s: %w", id, err)
		}
		return errDeleted
	}
	err := s.owned(id, owner, func(spec *Spec, st *State) error {
		w = &Watcher{Spec: spec, State: st}
		if spec.Kind == KindWebhook {
			// Every delivery the link accepted was answered 202: it is
			// told before the inbox goes. The receiver stores under this
			// lock, so a delivery arriving now finds the watcher gone
			// and is refused (404) before any 202.
			if err := s.tellAccepted(spec, st, time.Now()); err != nil {
				return fmt.Errorf("delete watcher %s: tell the deliveries it accepted first: %w; nothing was deleted", id, err)
			}
		}
		return remove()
	})
	var de *damagedError
	if errors.As(err, &de) { // owned checked the owner
		w = s.damaged(de)
		err = safefile.WithLock(filepath.Join(s.watcherDir(id), "lock"), remove)
	}
	if errors.Is(err, errDeleted) {
		return w, nil
	}
	return nil, err
}

var errDeleted = errors.New("deleted")

// SetTask records the background task that runs the watcher.
func (s *Store) SetTask(id, taskID string) error {
	return s.update(id, func(_ *Spec, st *State) error { st.TaskID = taskID; return nil })
}

// owned is update for the owner only; an errSkipWrite from fn is success.
// A damaged watcher is its owner's damagedError (the owner read from the
// spec, when that is what survived), anyone else's ErrNotFound.
func (s *Store) owned(id, owner string, fn func(*Spec, *State) error) error {
	err := s.update(id, func(spec *Spec, st *State) error {
		if spec.Owner != owner {
			return fmt.Errorf("watcher %s: %w", id, ErrNotFound)
		}
		return fn(spec, st)
	})
	if errors.Is(err, errSkipWrite) {
		return nil
	}
	var de *damagedError
	if errors.As(err, &de) && s.damaged(de).Spec.Owner != owner {
		return fmt.Errorf("watcher %s: %w", id, ErrNotFound)
	}
	return err
}

func pause(st *State, reason string, now time.Time) {
	st.Paused, st.Reason, st.Since = true, reason, &now
}
