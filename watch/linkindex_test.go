package watch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// An unknown token costs a stat of the watchers directory, whatever the
// home holds (issue 26, item 11: with 2,000 paused watchers each request
// read every watcher's files, 343 times the cost of an empty home): once
// the index is built, misses read no directory and load no watcher until
// the directory changes. Counted, not timed (the figures are
// BenchmarkUnknownToken's, in receiver).
func TestUnknownTokenReadsNothingOnceIndexed(t *testing.T) {
	s := newStore(t)
	c := webhook(t, s, &Request{})
	spec, err := os.ReadFile(filepath.Join(s.watcherDir(c.Spec.ID), "spec.json"))
	if err != nil {
		t.Fatal(err)
	}
	for k := range 2000 {
		dir := filepath.Join(s.dir, "w"+strconv.Itoa(1000+k))
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "spec.json"), spec, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// The directory as if last changed a while ago, so that an equal
	// mtime later proves nothing changed (no racy re-sync).
	old := time.Now().Add(-time.Minute)
	if err := os.Chtimes(s.dir, old, old); err != nil {
		t.Fatal(err)
	}
	const unknown = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
	if _, err := s.ByLinkToken(unknown); !errors.Is(err, ErrNotFound) {
		t.Fatalf("an unknown token: %v", err)
	}
	built := s.links.reads
	if built < 2000 {
		t.Fatalf("building the index read %d times; want every watcher once", built)
	}
	for range 200 {
		if _, err := s.ByLinkToken(unknown); !errors.Is(err, ErrNotFound) {
			t.Fatalf("an unknown token: %v", err)
		}
	}
	if n := s.links.reads - built; n != 0 {
		t.Errorf("200 unknown tokens read the directory or a watcher %d times once the index was built; want 0", n)
	}
	// A new watcher changes the directory: the next miss loads it alone.
	// (Another owner's: the copies count as the first owner's.)
	if _, err := s.Create(context.Background(), &Request{Kind: KindWebhook}, "sess-2", ""); err != nil {
		t.Fatal(err)
	}
	before := s.links.reads
	if _, err := s.ByLinkToken(unknown); !errors.Is(err, ErrNotFound) {
		t.Fatalf("an unknown token: %v", err)
	}
	if n := s.links.reads - before; n < 1 || n > 3 {
		t.Errorf("after one create, a miss read %d times; want the directory and the new watcher", n)
	}
}

// The index of one store (the receiver's) sees the links another store
// (a CLI process) creates and deletes at once, with no wait: a link is
// found the moment its create returns, and a deleted one is not found.
// A watcher whose files cannot be read is an error, never ErrNotFound.
func TestLinkIndexFollowsOtherProcesses(t *testing.T) {
	s := newStore(t)
	other, err := OpenStore(s.Registry())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ByLinkToken("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("an unknown token: %v", err)
	}
	token := func(id string) string {
		tok, err := other.LinkToken(id, "sess")
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	prev, prevToken := "", ""
	for round := range 30 {
		c := webhook(t, other, &Request{})
		tok := token(c.Spec.ID)
		w, err := s.ByLinkToken(tok)
		if err != nil || w.Spec.ID != c.Spec.ID {
			t.Fatalf("round %d: the link %s just created: %v, %v", round, c.Spec.ID, w, err)
		}
		if prev != "" {
			if _, err := other.Delete(prev, "sess"); err != nil {
				t.Fatal(err)
			}
			if w, err := s.ByLinkToken(prevToken); !errors.Is(err, ErrNotFound) {
				t.Fatalf("round %d: the link %s just deleted: %v, %v", round, prev, w, err)
			}
		}
		prev, prevToken = c.Spec.ID, tok
	}
	// Its spec unreadable (a directory where the file was).
	spec := filepath.Join(s.watcherDir(prev), "spec.json")
	if err := os.Remove(spec); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(spec, 0o700); err != nil {
		t.Fatal(err)
	}
	if w, err := s.ByLinkToken(prevToken); err == nil || errors.Is(err, ErrNotFound) {
		t.Errorf("a link whose spec cannot be read: %v, %v; want an error that is not ErrNotFound", w, err)
	}
	// A store that meets it first still finds the others' tokens unknown
	// rather than failing every lookup.
	fresh, err := OpenStore(s.Registry())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fresh.ByLinkToken("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"); !errors.Is(err, ErrNotFound) {
		t.Errorf("an unknown token beside an unreadable watcher: %v", err)
	}
}
