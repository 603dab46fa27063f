package watch

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hangdog/hangdog/internal/safefile"
)

// Link kinds: watchers that are not polled but called in through hangdog's
// one local receiver (`hangdog serve`), at a URL whose path holds the
// watcher's 256-bit token.
const (
	KindWebhook  = "webhook"  // a trigger link: a sender POSTs deliveries
	KindApproval = "approval" // an approval link: a person decides on a page
)

// LinkSpec is what a link watcher's spec keeps of its URL. The token itself is
// never in the spec (specs are listed and shown to models): it is in
// <id>/link.token, 0600, read only to build the URL for the person and to
// answer `hangdog watch secret`. The receiver finds a watcher by the
// token's hash.
type LinkSpec struct {
	TokenHash string `json:"token_hash"`

	// A trigger link's limits (kind webhook; see webhook.go). Signature is
	// the scheme a signed link checks (github, standard_webhooks,
	// hmac_sha256), empty for an unsigned one; its secret is in
	// <id>/link.secret, never here.
	Signature  string `json:"signature,omitempty"`
	MaxHits    int    `json:"max_hits,omitempty"`
	RatePerMin int    `json:"rate_per_min,omitempty"`
}

// linkTokenFile holds a link watcher's token; linkInboxDir the deliveries
// (or the decision) the receiver stored and the runner has not handled.
const (
	linkTokenFile = "link.token"
	linkInboxDir  = "inbox"
)

// NewLinkToken returns a fresh 256-bit token, URL-safe base64 without
// padding (43 characters).
func NewLinkToken() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("link token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// LinkTokenHash is the token's hash as specs keep it.
func LinkTokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// validLinkToken: what NewLinkToken makes. Anything else is refused before
// any file is read.
func validLinkToken(token string) bool {
	if len(token) != 43 {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(token)
	return err == nil
}

// ByLinkToken finds the link watcher whose token this is, through the
// store's index of token hashes (linkindex.go): an unknown token costs a
// stat, not a read of every watcher. Unknown tokens and malformed ones are
// ErrNotFound; any other error (the watchers could not be read) is not,
// so a caller never answers a live link as unknown. It says nothing of
// expiry or pauses: the caller decides what a stopped watcher answers.
func (s *Store) ByLinkToken(token string) (*Watcher, error) {
	if !validLinkToken(token) {
		return nil, fmt.Errorf("link: %w", ErrNotFound)
	}
	return s.lookupLink(LinkTokenHash(token))
}

// LinkToken reads a link watcher's token, for the person (the URL, `watch
// secret`); only the owner may.
func (s *Store) LinkToken(id, owner string) (string, error) {
	w, err := s.Get(id, owner)
	if err != nil {
		return "", err
	}
	if w.Spec.Link == nil {
		return "", fmt.Errorf("watcher %s is a %s watcher: only webhook and approval watchers have a link", id, w.Spec.Kind)
	}
	b, err := os.ReadFile(filepath.Join(s.watcherDir(id), linkTokenFile))
	if err != nil {
		return "", fmt.Errorf("watcher %s: read its link token: %w", id, err)
	}
	return strings.TrimSpace(string(b)), nil
}

// writeLinkToken stores a new watcher's token before its spec is written
// (a listed link watcher always has its token).
func (s *Store) writeLinkToken(id, token string) error {
	return safefile.Write(filepath.Join(s.watcherDir(id), linkTokenFile), []byte(token+"\n"))
}

// Inbox is the directory where the receiver stores what arrived for a link
// watcher (one file per delivery, written atomically before the sender is
// answered) and its runner drains.
func (s *Store) Inbox(id string) string {
	return filepath.Join(s.watcherDir(id), linkInboxDir)
}
