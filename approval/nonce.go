package approval

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hangdog/hangdog/internal/safefile"
)

// The page's nonce: "<unix seconds>.<HMAC-SHA256(key, token|seconds)>",
// a hidden field of the form. A cross-site page can post to the link but
// cannot read the page, so it has no nonce; one made for another link
// does not fit this one. Valid for nonceTTL: a page left open longer is
// shown again to be pressed once more.
const (
	nonceTTL  = 12 * time.Hour
	nonceSkew = time.Minute
	keyFile   = "approval-nonce.key" // under the home, 0600
)

// keyring loads the nonce key once, making it on first use: the home's
// file, or what a fleet receiver's KeySource gives.
type keyring struct {
	load KeySource
	mu   sync.Mutex
	key  []byte
}

// KeySource gives the 32-byte nonce key, making it if there is none yet;
// every receiver of the same links must get the same key, or a page one
// served is refused by another.
type KeySource func() ([]byte, error)

// FileKey is the key kept in the file at path (0600), made on first use.
func FileKey(path string) KeySource { return func() ([]byte, error) { return loadOrMakeKey(path) } }

// NewKey is a fresh random key, for a KeySource that stores its own.
func NewKey() ([]byte, error) {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("approval nonce key: %w", err)
	}
	return key, nil
}

func (k *keyring) get() ([]byte, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.key != nil {
		return k.key, nil
	}
	key, err := k.load()
	if err != nil {
		return nil, err
	}
	if len(key) != 32 {
		return nil, fmt.Errorf("approval nonce key: %d bytes, want 32", len(key))
	}
	k.key = key
	return key, nil
}

// loadOrMakeKey reads the key, making it on first use.
func loadOrMakeKey(path string) ([]byte, error) {
	key, err := safefile.Key(path, 32)
	if err != nil {
		return nil, fmt.Errorf("approval nonce %w", err)
	}
	return key, nil
}

func nonceMAC(key []byte, token string, issued int64) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("approve|" + token + "|" + strconv.FormatInt(issued, 10)))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func makeNonce(key []byte, token string, now time.Time) string {
	at := now.Unix()
	return strconv.FormatInt(at, 10) + "." + nonceMAC(key, token, at)
}

// checkNonce says what is wrong with a posted nonce, or nil.
func checkNonce(key []byte, token, nonce string, now time.Time) error {
	if nonce == "" {
		return errors.New("the form had no nonce: it was not sent from this page")
	}
	at, mac, ok := strings.Cut(nonce, ".")
	issued, err := strconv.ParseInt(at, 10, 64)
	if !ok || err != nil || !hmac.Equal([]byte(mac), []byte(nonceMAC(key, token, issued))) {
		return errors.New("the form's nonce does not belong to this page")
	}
	t := time.Unix(issued, 0)
	if t.After(now.Add(nonceSkew)) || now.Sub(t) > nonceTTL {
		return errors.New("the page was open too long")
	}
	return nil
}
