// Package webhooksig checks (and, for senders and tests, makes) the
// signatures that webhook senders put on their deliveries: GitHub's
// X-Hub-Signature-256, Standard Webhooks' webhook-signature and a plain
// X-Signature HMAC. Every comparison is in constant time. It knows nothing
// of links or watchers; the receiver says which scheme and secret apply.
package webhooksig

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Schemes.
const (
	GitHub           = "github"            // X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>
	StandardWebhooks = "standard_webhooks" // webhook-id, webhook-timestamp, webhook-signature: v1,<base64> …
	HMACSHA256       = "hmac_sha256"       // X-Signature: sha256=<hex HMAC-SHA256 of the raw body>
)

// Schemes lists the schemes, for messages.
func Schemes() []string { return []string{GitHub, StandardWebhooks, HMACSHA256} }

// Tolerance is how far a Standard Webhooks timestamp may be from now, either
// way; outside it a delivery is a replay (or a clock far off) and refused.
const Tolerance = 5 * time.Minute

// Headers a scheme reads.
const (
	HeaderGitHub    = "X-Hub-Signature-256"
	HeaderHMAC      = "X-Signature"
	HeaderID        = "Webhook-Id"
	HeaderTimestamp = "Webhook-Timestamp"
	HeaderSignature = "Webhook-Signature"
)

// secretPrefix starts a Standard Webhooks secret: whsec_<base64 key>.
const secretPrefix = "whsec_"

// Why a delivery was refused. The receiver answers each with 401 and says
// which; none quotes a signature or the secret.
var (
	ErrMissing  = errors.New("signature missing")
	ErrMismatch = errors.New("signature does not match")
	ErrStale    = errors.New("timestamp outside the tolerance")
)

// Known reports whether scheme is one of Schemes.
func Known(scheme string) bool {
	switch scheme {
	case GitHub, StandardWebhooks, HMACSHA256:
		return true
	}
	return false
}

// CheckSecret says what is wrong with a secret for a scheme, or nil.
func CheckSecret(scheme, secret string) error {
	if secret == "" {
		return errors.New("the secret is empty")
	}
	if len(secret) > 1024 {
		return errors.New("the secret is longer than 1024 bytes")
	}
	if scheme == StandardWebhooks {
		if _, err := standardKey(secret); err != nil {
			return err
		}
	}
	return nil
}

// NewSecret makes a random secret in the scheme's form (whsec_… for
// Standard Webhooks, 64 hex digits otherwise).
func NewSecret(scheme string) (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("make a signing secret: %w", err)
	}
	if scheme == StandardWebhooks {
		return secretPrefix + base64.StdEncoding.EncodeToString(b[:]), nil
	}
	return hex.EncodeToString(b[:]), nil
}

func standardKey(secret string) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, secretPrefix))
	if err != nil || len(key) == 0 {
		return nil, errors.New("a standard_webhooks secret is whsec_ followed by base64 (e.g. whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw)")
	}
	return key, nil
}

func hmacSHA256(key, msg []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(msg)
	return m.Sum(nil)
}

// Verify checks a delivery's signature under scheme and secret at now. The
// error wraps ErrMissing, ErrMismatch or ErrStale and names the header.
func Verify(scheme, secret string, h http.Header, body []byte, now time.Time) error {
	switch scheme {
	case GitHub, HMACSHA256:
		name := HeaderGitHub
		if scheme == HMACSHA256 {
			name = HeaderHMAC
		}
		v := h.Get(name)
		if v == "" {
			return fmt.Errorf("%w: no %s header", ErrMissing, name)
		}
		hexSig, ok := strings.CutPrefix(v, "sha256=")
		got, err := hex.DecodeString(hexSig)
		if !ok || err != nil {
			return fmt.Errorf("%w: %s is not sha256=<hex>", ErrMismatch, name)
		}
		if !hmac.Equal(got, hmacSHA256([]byte(secret), body)) {
			return fmt.Errorf("%w (%s)", ErrMismatch, name)
		}
		return nil
	case StandardWebhooks:
		id, ts, sigs := h.Get(HeaderID), h.Get(HeaderTimestamp), h.Get(HeaderSignature)
		if id == "" || ts == "" || sigs == "" {
			return fmt.Errorf("%w: webhook-id, webhook-timestamp and webhook-signature are all needed", ErrMissing)
		}
		sec, err := strconv.ParseInt(ts, 10, 64)
		if err != nil {
			return fmt.Errorf("%w: webhook-timestamp %q is not Unix seconds", ErrMismatch, clip(ts))
		}
		if d := now.Sub(time.Unix(sec, 0)); d > Tolerance || d < -Tolerance {
			return fmt.Errorf("%w: webhook-timestamp is %v from now, more than %v", ErrStale, d.Round(time.Second), Tolerance)
		}
		key, err := standardKey(secret)
		if err != nil {
			return err
		}
		want := hmacSHA256(key, standardContent(id, ts, body))
		// Any v1 signature in the list may match (senders rotating keys
		// send several); every one is compared, so the time taken does not
		// say which matched.
		match := false
		for _, s := range strings.Fields(sigs) {
			b64, ok := strings.CutPrefix(s, "v1,")
			if !ok {
				continue
			}
			got, err := base64.StdEncoding.DecodeString(b64)
			if err == nil && hmac.Equal(got, want) {
				match = true
			}
		}
		if !match {
			return fmt.Errorf("%w (webhook-signature)", ErrMismatch)
		}
		return nil
	}
	return fmt.Errorf("unknown signature scheme %q (use %s)", scheme, strings.Join(Schemes(), ", "))
}

func standardContent(id, ts string, body []byte) []byte {
	msg := make([]byte, 0, len(id)+len(ts)+2+len(body))
	msg = append(append(append(append(msg, id...), '.'), ts...), '.')
	return append(msg, body...)
}

// Sign returns the headers a sender adds under scheme (id and at are used
// by Standard Webhooks only).
func Sign(scheme, secret, id string, at time.Time, body []byte) (http.Header, error) {
	h := http.Header{}
	switch scheme {
	case GitHub:
		h.Set(HeaderGitHub, "sha256="+hex.EncodeToString(hmacSHA256([]byte(secret), body)))
	case HMACSHA256:
		h.Set(HeaderHMAC, "sha256="+hex.EncodeToString(hmacSHA256([]byte(secret), body)))
	case StandardWebhooks:
		key, err := standardKey(secret)
		if err != nil {
			return nil, err
		}
		ts := strconv.FormatInt(at.Unix(), 10)
		h.Set(HeaderID, id)
		h.Set(HeaderTimestamp, ts)
		h.Set(HeaderSignature, "v1,"+base64.StdEncoding.EncodeToString(hmacSHA256(key, standardContent(id, ts, body))))
	default:
		return nil, fmt.Errorf("unknown signature scheme %q (use %s)", scheme, strings.Join(Schemes(), ", "))
	}
	return h, nil
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
