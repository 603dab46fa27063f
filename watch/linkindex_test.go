package watch

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

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
