package watch

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"
)

// linkIndex maps link token hashes to watcher ids, so a link is found, and
// an unknown token refused, without reading every watcher's files (with
// 2,000 watchers that read made the receiver's every unknown-token request
// cost 30 ms). It is built once per Store, on the first lookup, and kept in
// step with the watchers directory: a lookup that misses stats the
// directory (one syscall) and, only if it changed since the last sync, reads
// its names and loads the watchers it has not seen. Tokens never change
// and ids are not reused, so a hit is checked by loading its one watcher.
type linkIndex struct {
	mu     sync.Mutex
	built  bool
	byHash map[string]string // token hash → watcher id
	hashOf map[string]string // watcher id → token hash ("" for a watcher without a link)
	// incomplete are directories without a spec yet (a create between
	// its mkdir and its spec.json): a miss looks at them again, each by
	// itself, until they complete or are older than incompleteFor.
	incomplete map[string]time.Time
	// dir is the watchers directory's mtime and link count (its number
	// of subdirectories, where the file system keeps it) at the last
	// sync. racy says the mtime was then too recent for an equal mtime
	// later to prove that nothing changed (timestamps are as coarse as the
	// kernel's clock tick), so a miss syncs again, at most every
	// racyEvery; a create changes the link count at once.
	dir      dirStamp
	racy     bool
	lastSync time.Time
	// reads counts the directory's reads and the watchers loaded: what a
	// lookup costs beyond its stat (TestUnknownTokenReadsNothingOnceIndexed).
	reads int
}

type dirStamp struct {
	mtime time.Time
	links uint64
}

// incompleteFor is how long a directory without a spec is looked at again
// on a miss: a create writes its spec within milliseconds, so one older is
// the leftover of a crashed create.
const incompleteFor = time.Minute

// racyWindow: a directory mtime this close to the sync that read it may be
// followed by a change with the same mtime (a second: some file systems
// keep whole seconds). racyEvery bounds the syncs it costs.
const (
	racyWindow = time.Second
	racyEvery  = 50 * time.Millisecond
)

func newLinkIndex() *linkIndex {
	return &linkIndex{byHash: map[string]string{}, hashOf: map[string]string{}, incomplete: map[string]time.Time{}}
}

// lookupLink finds the link watcher of a token hash through the index.
// ErrNotFound only when no watcher has it; an error reading the directory
// or a watcher's files is returned as such, never as "not found" (a live
// link's request must not be told its link does not exist because the
// process ran out of descriptors).
func (s *Store) lookupLink(hash string) (*Watcher, error) {
	x := s.links
	x.mu.Lock()
	id, ok := x.byHash[hash]
	if !ok {
		if err := s.syncLinks(); err != nil {
			x.mu.Unlock()
			return nil, err
		}
		id, ok = x.byHash[hash]
	}
	x.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("link: %w", ErrNotFound)
	}
	w, err := s.loadWatcher(id)
	if errors.Is(err, ErrNotFound) {
		x.forget(id) // deleted
		return nil, fmt.Errorf("link: %w", ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("link: %w", err)
	}
	if w.Spec == nil || w.Spec.Link == nil || subtle.ConstantTimeCompare([]byte(w.Spec.Link.TokenHash), []byte(hash)) != 1 {
		return nil, fmt.Errorf("link: %w", ErrNotFound)
	}
	return w, nil
}

func (x *linkIndex) forget(id string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if h := x.hashOf[id]; h != "" && x.byHash[h] == id {
		delete(x.byHash, h)
	}
	delete(x.hashOf, id)
}

// syncLinks brings the index up to date with the directory, under x.mu.
// Cheap when nothing changed: one stat, and a load of each recent
// incomplete directory. On an error the index keeps what it had and the
// next miss tries again.
func (s *Store) syncLinks() error {
	x := s.links
	before := time.Now()
	fi, err := os.Stat(s.dir)
	if err != nil {
		return fmt.Errorf("look up a link: %w", err)
	}
	now := dirStamp{fi.ModTime(), dirLinks(fi)}
	if x.built && now.mtime.Equal(x.dir.mtime) && now.links == x.dir.links && (!x.racy || time.Since(x.lastSync) < racyEvery) {
		for id, since := range x.incomplete {
			if time.Since(since) > incompleteFor {
				delete(x.incomplete, id)
				continue
			}
			if err := s.indexOne(id); err != nil {
				return err
			}
		}
		return nil
	}
	x.reads++
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return fmt.Errorf("look up a link: %w", err)
	}
	present := make(map[string]bool, len(ents))
	for _, e := range ents {
		id := e.Name()
		if !e.IsDir() || !ValidID(id) {
			continue
		}
		present[id] = true
		if _, known := x.hashOf[id]; known {
			continue
		}
		if err := s.indexOne(id); err != nil {
			return err
		}
	}
	for id := range x.hashOf {
		if !present[id] {
			if h := x.hashOf[id]; h != "" && x.byHash[h] == id {
				delete(x.byHash, h)
			}
			delete(x.hashOf, id)
		}
	}
	for id := range x.incomplete {
		if !present[id] {
			delete(x.incomplete, id)
		}
	}
	x.built, x.dir, x.lastSync = true, now, before
	x.racy = before.Sub(now.mtime) < racyWindow
	return nil
}

// indexOne loads one watcher into the index, under x.mu. A directory
// without a spec is incomplete (looked at again); a damaged watcher is
// indexed by its spec's link, as a listing shows it. Only a failure that
// passes (out of descriptors or memory) fails the sync.
func (s *Store) indexOne(id string) error {
	x := s.links
	x.reads++
	w, err := s.loadWatcher(id)
	if errors.Is(err, ErrNotFound) {
		if _, ok := x.incomplete[id]; !ok {
			x.incomplete[id] = time.Now()
		}
		return nil
	}
	if err != nil && !transient(err) {
		// Unreadable for good (as a listing skips it): looked at again
		// like an incomplete one, and no reason to fail every lookup.
		if _, ok := x.incomplete[id]; !ok {
			x.incomplete[id] = time.Now()
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("look up a link: %w", err)
	}
	delete(x.incomplete, id)
	h := ""
	if w.Spec != nil && w.Spec.Link != nil {
		h = w.Spec.Link.TokenHash
		x.byHash[h] = id
	}
	x.hashOf[id] = h
	return nil
}

// transient: a failure to read that says nothing of the file and passes.
func transient(err error) bool {
	for _, e := range []error{syscall.EMFILE, syscall.ENFILE, syscall.ENOMEM, syscall.EAGAIN, syscall.EINTR} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
