package watch

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hangdog/hangdog/internal/safefile"
)

// Dedupe windows. A delivery with an id of its own (Idempotency-Key,
// webhook-id, X-GitHub-Delivery), or a body under a signature that covers
// the body only, is stored once for as long as its id is remembered:
// senders retry for hours, some for days, and a captured signed body may
// be replayed as long. Without either, the same body counts once within
// BodyDedupeWindow.
const (
	BodyDedupeWindow = 10 * time.Minute
	idDedupeWindow   = 7 * 24 * time.Hour
	maxSeen          = 5000
	// maxDrain bounds the deliveries one check handles, so a full inbox is
	// drained in steps rather than in one long hold of the lock.
	maxDrain = 500
)

// ErrLinkClosed: the link takes nothing (paused, deleted, expired, used
// up). The receiver answers it as it answers an unknown link.
var ErrLinkClosed = errors.New("link closed")

// Delivery is one POST the receiver verified and is about to store.
type Delivery struct {
	// ID is what dedupes it: "id:<the sender's id>", "signed:<sha256 of a
	// signed body>" (remembered as long as an id) or "body:<sha256>".
	ID          string
	Event       string // X-GitHub-Event, when sent
	ContentType string
	Body        []byte
}

// hookRecord is <id>/hook.json: what the receiver has accepted.
type hookRecord struct {
	Hits int        `json:"hits"`
	Seen []seenItem `json:"seen,omitempty"` // oldest first
}

type seenItem struct {
	ID string    `json:"id"`
	At time.Time `json:"at"`
}

// inboxItem is one stored delivery, <id>/inbox/<seq>-<hash>.json.
type inboxItem struct {
	Seq         int             `json:"seq"`
	ID          string          `json:"id"`
	Received    time.Time       `json:"received"`
	Event       string          `json:"event,omitempty"`
	ContentType string          `json:"content_type,omitempty"`
	Body        json.RawMessage `json:"body,omitempty"` // the body when it is JSON
	Text        string          `json:"text,omitempty"` // the body when it is not
}

func (s *Store) readHook(id string) (hookRecord, error) {
	var h hookRecord
	err := readJSON(filepath.Join(s.watcherDir(id), hookFile), &h)
	if errors.Is(err, fs.ErrNotExist) {
		err = nil
	}
	return h, err
}

// AcceptDelivery stores a delivery in a trigger link's inbox, under the
// watcher's lock: it refuses a closed link (ErrLinkClosed), answers a
// repeat with duplicate=true and stores nothing, and otherwise writes the
// delivery durably and then counts the hit durably, before it returns. A
// crash between the two leaves a stored delivery not yet counted; the
// next accept counts it first (adoptOrphans), so the sender's retry is a
// duplicate, not a second event.
func (s *Store) AcceptDelivery(id string, d Delivery, now time.Time) (duplicate bool, err error) {
	err = s.update(id, func(sp *Spec, st *State) error {
		if sp.Kind != KindWebhook || sp.Link == nil || st.Paused ||
			(sp.ExpiresAt != nil && !now.Before(*sp.ExpiresAt)) {
			return ErrLinkClosed
		}
		h, err := s.readHook(id)
		if err != nil {
			return err
		}
		adopted := s.adoptOrphans(id, &h, st, now)
		writeHook := func() error {
			if len(h.Seen) > maxSeen {
				h.Seen = h.Seen[len(h.Seen)-maxSeen:]
			}
			hb, err := json.Marshal(h)
			if err != nil {
				return fmt.Errorf("watcher %s: encode its hits: %w", id, err)
			}
			return safefile.WriteDurable(filepath.Join(s.watcherDir(id), hookFile), hb)
		}
		if h.Hits >= sp.Link.MaxHits {
			if adopted {
				if err := writeHook(); err != nil {
					return err
				}
			}
			return ErrLinkClosed
		}
		h.Seen = slices.DeleteFunc(h.Seen, func(it seenItem) bool {
			return now.Sub(it.At) >= seenWindow(it.ID)
		})
		key := seenKey(d.ID)
		if slices.ContainsFunc(h.Seen, func(it seenItem) bool { return it.ID == key }) {
			duplicate = true
			if adopted {
				if err := writeHook(); err != nil {
					return err
				}
			}
			return errSkipWrite
		}
		seq := h.Hits + 1
		item := inboxItem{Seq: seq, ID: d.ID, Received: now, Event: d.Event, ContentType: d.ContentType}
		if json.Valid(d.Body) {
			item.Body = d.Body
		} else {
			item.Text = strings.ToValidUTF8(string(d.Body), string(utf8.RuneError))
		}
		b, err := json.Marshal(item)
		if err != nil {
			return fmt.Errorf("watcher %s: encode a delivery: %w", id, err)
		}
		if err := safefile.WriteDurable(filepath.Join(s.Inbox(id), inboxName(seq, key)), b); err != nil {
			return err
		}
		h.Hits = seq
		h.Seen = append(h.Seen, seenItem{ID: key, At: now})
		if err := writeHook(); err != nil {
			return err
		}
		return errSkipWrite // state.json is the runner's; nothing in it changed
	})
	if errors.Is(err, errSkipWrite) {
		err = nil
	}
	if errors.Is(err, ErrNotFound) {
		err = ErrLinkClosed
	}
	return duplicate, err
}

// seenKey is what the dedupe record keeps of a delivery id, and what its
// inbox file is named by: "i" (a sender's id or a signed body: the id
// window) or "b" (an unsigned body: the body window) and a hash.
// A hash, so a stored delivery's file name says which delivery it is.
func seenKey(deliveryID string) string {
	kind := "i"
	if strings.HasPrefix(deliveryID, "body:") {
		kind = "b"
	}
	return kind + hashText(deliveryID)[:24]
}

// seenWindow is how long a seen key is remembered.
func seenWindow(key string) time.Duration {
	if strings.HasPrefix(key, "b") {
		return BodyDedupeWindow
	}
	return idDedupeWindow
}

// DedupeKey is what makes a delivery the same as another, as the
// receiver's dedupe record keeps it (a letter and a hash of the delivery
// id), and Window how long it is remembered. The fleet receiver keeps its
// own record of deliveries it passed on with them.
func DedupeKey(deliveryID string) (key string, window time.Duration) {
	k := seenKey(deliveryID)
	return k, seenWindow(k)
}

func inboxName(seq int, key string) string { return fmt.Sprintf("%010d-%s.json", seq, key) }

// adoptOrphans counts deliveries that were stored but not counted: a crash
// (kill -9) between the two writes of an accept leaves the delivery's
// file, numbered hits+1, and no hit. Its sender got no answer and retries;
// adopting the file first (from the inbox, or from the runner's handled
// keys if it is already drained) makes the retry a duplicate instead of a
// second event. It reports whether it adopted any.
func (s *Store) adoptOrphans(id string, h *hookRecord, st *State, now time.Time) bool {
	adopted := false
	for {
		prefix := fmt.Sprintf("%010d-", h.Hits+1)
		var key string
		if m, _ := filepath.Glob(filepath.Join(s.Inbox(id), prefix+"*.json")); len(m) > 0 {
			key = strings.TrimSuffix(strings.TrimPrefix(filepath.Base(m[0]), prefix), ".json")
		} else {
			for _, k := range st.Keys {
				if rest, ok := strings.CutPrefix(k, prefix); ok {
					key = rest
				}
			}
		}
		if key == "" {
			return adopted
		}
		h.Hits++
		h.Seen = append(h.Seen, seenItem{ID: key, At: now})
		adopted = true
	}
}

// inboxDelivery is a stored delivery as the runner reads it.
type inboxDelivery struct {
	Key  string // the file's name without .json: unique per accepted delivery
	Item inboxItem
	path string
}

// listInbox reads the stored deliveries, oldest first (names start with
// the hit's number), at most maxDrain. Temp files (dot files) are not
// deliveries yet. A file that does not parse is returned with an empty
// item, so it is reported once and removed rather than retried forever.
func listInbox(dir string) ([]inboxDelivery, error) { return readInbox(dir, maxDrain) }

// readInbox is listInbox with a limit of its own; 0: every delivery.
func readInbox(dir string, limit int) ([]inboxDelivery, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read the inbox: %w", err)
	}
	var names []string
	for _, e := range ents {
		if n := e.Name(); !strings.HasPrefix(n, ".") && strings.HasSuffix(n, ".json") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	if limit > 0 && len(names) > limit {
		names = names[:limit]
	}
	out := make([]inboxDelivery, 0, len(names))
	for _, n := range names {
		d := inboxDelivery{Key: strings.TrimSuffix(n, ".json"), path: filepath.Join(dir, n)}
		b, err := os.ReadFile(d.path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read the inbox: %w", err)
		}
		_ = json.Unmarshal(b, &d.Item)
		out = append(out, d)
	}
	return out, nil
}
